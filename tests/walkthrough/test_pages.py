"""Reading the walkthrough's directives and roles out of MyST pages, as the lock does."""

from __future__ import annotations

import pytest

from walkthrough.excerpt import ExcerptSpec
from walkthrough.pages import PageError, role_target, scan_docs, scan_text

pytestmark = pytest.mark.pure

PAGE = '''\
# Frame evaluation

The entry is {torch-symbol}`torch._dynamo.convert_frame:_compile`, and
{torch-symbol}`the assert wrapper <torch._dynamo.convert_frame:ConvertFrameAssert.__call__>` calls it
at most {torch-fact}`torch._dynamo.config.recompile_limit == 8` times.

```{torch-excerpt} torch._dynamo.convert_frame:_compile
:start: def compile_inner
:end: return
:caption: The inner compile

emphasize: tracer.run()
out_code = => the new bytecode
```

````markdown
{torch-symbol}`torch:not_a_role_here`
```{torch-excerpt} torch:in_a_code_block
```
````

:::{torch-excerpt} torch:compile
---
start: def compile
---
:::
'''


def test_scan_finds_directives_and_roles_outside_code_blocks():
    refs = scan_text("frame-evaluation", PAGE)
    assert refs.symbols == ("torch._dynamo.convert_frame:_compile",
                            "torch._dynamo.convert_frame:ConvertFrameAssert.__call__")
    assert [c.text for c in refs.facts] == ["torch._dynamo.config.recompile_limit == 8"]
    assert refs.excerpts == (
        ExcerptSpec("torch._dynamo.convert_frame:_compile", "def compile_inner", "return", ("tracer.run()",),
                    (("out_code =", "the new bytecode"),), "The inner compile"),
        ExcerptSpec("torch:compile", "def compile"),
    )


def test_errors_name_page_and_line():
    with pytest.raises(PageError, match=r"^ch\.md:3: .*expected module:qualname"):
        scan_text("ch", "a\n\n{torch-symbol}`torch.compile`\n")
    with pytest.raises(PageError, match=r"^ch\.md:1: .*neither"):
        scan_text("ch", "```{torch-excerpt} torch:compile\nnot a pattern line\n```\n")


def test_role_target_forms():
    assert role_target("torch:compile") == ("", "torch:compile")
    assert role_target("the entry <torch:compile>") == ("the entry", "torch:compile")


def test_scan_docs_skips_underscore_dirs_and_pages_without_refs(tmp_path):
    (tmp_path / "chapters").mkdir()
    (tmp_path / "_build").mkdir()
    (tmp_path / "chapters" / "guards.md").write_text("{torch-symbol}`torch:compile`\n")
    (tmp_path / "_build" / "copy.md").write_text("{torch-symbol}`torch:compile`\n")
    (tmp_path / "index.md").write_text("# nothing here\n")
    assert [r.page for r in scan_docs(tmp_path)] == ["chapters/guards"]
