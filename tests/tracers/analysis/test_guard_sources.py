"""The guard-source grammar (tracers/analysis/guard_sources.py): every ``Source`` name form of each supported release,
read from its wheel's torch/_dynamo/source.py, and every source in the guard texts the project has recorded."""

from __future__ import annotations

import ast
import glob
import itertools
import json
from pathlib import Path

import pytest

from tracers.analysis.guard_sources import (Attr, Call, Item, Root, Source, Wrap, WrapperArg, call_site,
                                            find_sources, map_passed, map_wrapper_args, naming, parse_source,
                                            user_name)
from tracers.vocabulary.releases import REFERENCE_TORCH
from walkthrough.releases.catalog import SUPPORTED

pytestmark = pytest.mark.pure
# The reference torch is installed and CI fetches 2.15.0's wheel anyway; the others are ~900 MB each to fetch.
CHEAP = (REFERENCE_TORCH, "2.15.0")

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "guard_sources"
BASE = "L['self'].layer"  # what each chained source's ``{0}`` stands for

# One case per Source class name form, as torch prints it (guard code) and what the user wrote.
CASES = [
    ("L['x']", "x"),  # LocalSource
    ("G['scale']", "scale"),  # GlobalSource
    ("G['ref']()", "ref()"),  # GlobalWeakRefSource
    ("L['self'].layers[2].attn.weight", "self.layers[2].attn.weight"),  # AttrSource, GetItemSource
    ("L['self']._modules['layer']._parameters['weight']", "self.layer.weight"),  # NNModule storage
    ("L['model']._modules['blocks']._modules['1']._buffers['scale']", "model.blocks[1].scale"),
    ("getattr(L['x'], 'a-b')", "getattr(x, 'a-b')"),  # AttrSource, a member that is no identifier
    ("object.__getattribute__(L['x'], 'w')", "x.w"),  # GenericAttrSource
    ("dict(type(L['m']).__dict__)", "dict(type(m).__dict__)"),  # TypeDictSource
    ("type(L['m']).__mro__", "type(m).__mro__"),  # TypeMROSource
    ("G['f'].__code__", "f.__code__"),  # CodeSource
    ("L['fn'].__closure__[0].cell_contents", "fn.__closure__[0].cell_contents"),  # ClosureSource
    ("L['p'].grad", "p.grad"),  # GradSource
    ("<ephemeral: a value>", "<ephemeral: a value>"),  # EphemeralSource
    ("L['x'].size()[1]", "x"),  # TensorPropertySource
    ("L['x'].stride()[0]", "x"),
    ("L['x'].storage_offset()", "x"),
    ("(0, L['x'])", "(0, x)"),  # IndexedSource
    ("L['n'].__neg__()", "n.__neg__()"),  # NegateSource
    ("cast_symbool_to_symint_guardless(L['b'])", "b"),  # ConvertIntSource
    ("int(L['n'])", "n"),  # DynamicScalarSource
    ("L['o'].__obj_flatten__()", "o.__obj_flatten__()"),  # FlattenScriptObjectSource
    ("L['o']._type().qualified_name()", "o._type().qualified_name()"),  # ScriptObjectQualifiedNameSource
    ("L['p'].get_base()", "p.get_base()"),  # AttrProxySource
    ("L['f'].__defaults__[0]", "f.__defaults__[0]"),  # DefaultsSource
    ("L['f'].__kwdefaults__['k']", "f.__kwdefaults__['k']"),
    ("L['x'][slice(1, 4, None)]", "x[1:4]"),  # GetItemSource, a slice
    ("L['d']['key']", "d['key']"),
    ("L['t'][-1]", "t[-1]"),
    ("list(dict.keys(L['d']))[0]", "list(d.keys())[0]"),  # ConstDictKeySource
    ("L['d'][list(dict.keys(L['d']))[0]]", "d[list(d.keys())[0]]"),  # DictGetItemSource, a key by its source
    ("dict.__getitem__(L['d'], list(dict.keys(L['d']))[0])", "d[list(d.keys())[0]]"),  # DictSubclass…
    ("list(L['s'])[1]", "list(s)[1]"),  # NonSerializableSetGetItemSource, 2.11-2.13
    ("___set_getitem(L['s'], 1)", "s[1]"),  # NonSerializableSetGetItemSource, 2.14 on
    ("list.__getitem__(L['xs'], 0)", "xs[0]"),  # ListGetItemSource
    ("___tuple_iterator_getitem(L['it'], 0)", "it[0]"),  # TupleIteratorGetItemSource
    ("___list_reverseiterator_backing_list(L['it'])", "___list_reverseiterator_backing_list(it)"),  # 2.15
    ("___namedtuple_fields(L['nt'])", "___namedtuple_fields(nt)"),  # NamedTupleFieldsSource
    ("___dataclass_fields(L['dc'])", "___dataclass_fields(dc)"),  # DataclassFieldsSource
    ("type(L['self'])", "self"),  # TypeSource
    ("__import__('torch').nn", "torch.nn"),  # ImportSource
    ("___get_torch_function_mode_stack_at(0)", "___get_torch_function_mode_stack_at(0)"),
    ("___from_numpy(L['a'])", "a"),  # NumpyTensorSource
    ("L['t'].__tensor_flatten__()[0]", "t.__tensor_flatten__()[0]"),  # SubclassAttrListSource
    ("___unwrap_async_collective_tensor(L['t'])", "t"),  # UnwrapCollectiveTensorSource, 2.14 on
    ("___as_tensor(L['f'])", "f"),  # FloatTensorSource
    ("L['t'].item()", "t.item()"),  # CallMethodItemSource
    ("L['var'].get('d')", "var.get('d')"),  # ContextVarGetSource, 2.14 on
    ("___get_current_stream(torch.device('cuda', 0))", "___get_current_stream(torch.device('cuda', 0))"),
    ("___odict_getitem(L['od'], 'k')", "od['k']"),  # a guard helper around a source
    ("G['__import_torch_dot_nn_dot_functional'].relu", "torch.nn.functional.relu"),  # an imported module
    ("G['__builtins_dict___3']['isinstance']", "isinstance"),  # the builtins dict
    ("L['kwargs']['input_ids']", "input_ids"),  # a **kwargs wrapper's argument
    ("kwargs['input_ids']", "input_ids"),  # the same, stripped of L[...] in a failure reason
    ("L['args'][0]", "args[0]"),  # a *args wrapper's argument: the caller maps it (map_wrapper_args)
    ("self._modules['fc'].weight", "self.fc.weight"),  # stripped
]


@pytest.mark.parametrize("text,said", CASES)
def test_each_form_parses_round_trips_and_is_said_as_written(text: str, said: str) -> None:
    source = parse_source(text)
    assert source is not None, text
    assert str(source) == text
    assert source.root.kind not in ("unknown",) or text.startswith(("<", "___get_")), source
    assert user_name(source) == said


def test_the_tree_of_a_source() -> None:
    assert parse_source("L['self']._modules['layer'].weight.size()[1]") == Source(
        Root("local", "self", "L['self']"),
        (Attr("_modules"), Item("'layer'", "layer"), Attr("weight"), Attr("size"), Call(), Item("1", 1)))
    assert parse_source("len(G['xs'])") == Source(Root("global", "xs", "G['xs']"), (Wrap("len"),))
    nested = parse_source("L['d'][list(dict.keys(L['d']))[0]]")
    assert nested is not None and isinstance(nested.steps[0], Item) and isinstance(nested.steps[0].key, Source)


def test_size_stride_type_and_len_are_kept_apart_from_the_name() -> None:
    size = naming(parse_source("kwargs['input_ids'].size()[1]"))
    assert (size.name, size.attribute, size.dim) == ("input_ids", "size", 1)
    assert naming(parse_source("L['x'].stride()[0]")).attribute == "stride"
    assert naming(parse_source("len(L['crops'])")).attribute == "len"
    assert naming(parse_source("type(L['self'])")).attribute == "type"
    assert naming(parse_source("type(L['self']).forward")).name == "type(self).forward"


def test_stack_values_have_no_user_name() -> None:
    for text in ("___stack0", "L['___stack2']"):
        source = parse_source(text)
        assert source is not None and source.root.kind == "stack" and str(source) == text
        assert user_name(source) is None
    assert naming(parse_source("___stack2")).stack == 2


def test_wrapper_arguments_map_to_the_call_site() -> None:
    positional, keyword = parse_source("L['args'][1].size()[0]"), parse_source("kwargs['mask']")
    assert naming(positional).wrapper_arg == WrapperArg(index=1)
    assert naming(keyword).wrapper_arg == WrapperArg(keyword="mask")
    args, kwargs = call_site("out = model(ids, batch.labels, mask=m)")
    assert (args, kwargs) == (["ids", "batch.labels"], {"mask": "m"})
    assert map_wrapper_args(positional, args, kwargs) == "batch.labels"
    assert map_wrapper_args(keyword, args, kwargs) == "m"
    assert map_wrapper_args(parse_source("L['args'][0].weight"), args, kwargs) == "ids.weight"
    assert map_wrapper_args(parse_source("L['args'][5]"), args, kwargs) is None
    assert map_wrapper_args(parse_source("L['x']"), args, kwargs) is None


def test_text_that_is_no_source() -> None:
    for text in ("", "1 + 1", "L['x'", "tensor 'x' size mismatch", "L['x'].", "x y"):
        assert parse_source(text) is None, text


FAILURES = [  # failure reasons as torch 2.11-2.15 word them (L[...] stripped), and the sources in them
    ("0/0: tensor 'x' size mismatch at index 1. expected 64, actual 96", ["x"]),
    ("0/0: tensor 'kwargs['input_ids']' size mismatch at index 1. expected 16, actual 24", ["kwargs['input_ids']"]),
    ("0/0: tensor 'args[0]' dtype mismatch. expected Float, actual Double", ["args[0]"]),
    ("0/0: tensor 'x' Tensor device index mismatch. Expected device index to be 0, actual 1", ["x"]),
    ("0/1: t == 3  # return x * t  # model.py:3 in f", ["t"]),
    ("0/0: len(crops) == 2", ["len(crops)"]),
    ("0/0: ___check_obj_id(fn, 140251366515040), type=<class 'function'>", ["fn"]),
    ("0/0: ___check_type_id(self.cfg, 9452), type=<class 'Cfg'>", ["self.cfg"]),
    ("0/0: hasattr(x, '_dynamo_dynamic_indices') == False", ["x"]),
    ("1/0: b.size()[0] == a.size()[0]  # duck sizing added this equality", ["b.size()[0]", "a.size()[0]"]),
    ("0/0: 2 <= x.size()[0]", ["x.size()[0]"]),
    ("0/0: ___stack0 == 3; tensor 'y' dtype mismatch. expected Float, actual Double", ["___stack0", "y"]),
    ("0/0: Duplicate tensors found: [\"a\", \"kwargs['b']\"]", ["a", "kwargs['b']"]),
    ("0/0: not ___dict_contains('forward', self.__dict__)", ["self.__dict__"]),
    ("0/0: utils_device.CURRENT_DEVICE == None", []),
    ("0/0: BACKEND_MATCH failure: torch.compile detected different backend callables.", []),
    ("| | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CPU), torch.float32, device=None, "
     "requires_grad=False, size=[8], stride=[1])  # return x * 2  # f.py:2 in f", ["L['x']"]),
    ("| +- GuardManager: source=L['m']._modules['fc'], accessed_by=DictGetItemGuardAccessor('fc'), type=<class "
     "'Linear'>", ["L['m']._modules['fc']"]),
    ("0/0: x == 1\nUser stack trace:\n  File \"f.py\", line 2, in f\n    return y.size()[0]", ["x"]),
]


@pytest.mark.parametrize("text,expected", FAILURES)
def test_find_sources_in_failure_reasons_and_guard_lines(text: str, expected: list[str]) -> None:
    found = find_sources(text)
    assert [text[start:end] for (start, end), _ in found] == expected
    assert [str(source) for _, source in found] == expected


# ---- every Source class of every supported release -------------------------------------------------------------

# What each interpolated field of a name template can hold: the expression, whether it is repr()'d -> values.
FIELDS = {
    ("self.local_name", True): ["x", "___stack0"], ("self.global_name", True): ["x", "__import_torch_dot_nn"],
    ("self.member", True): ["a-b"], ("self.member", False): ["weight"], ("self.idx", False): [1],
    ("self.index", True): [0, "k", -1], ("self.unpack_slice()", True): [slice(1, 4, None)],
    ("self.index.name", False): ["list(dict.keys(L['d']))[0]"], ("self.random_call_index", False): [0],
    ("desc", False): [": a value"], ("self.module_name", False): ["torch"], ("self.device.type", False): ["cuda"],
    ("self.device.index", False): [0], ("self._get_index()", False): [0], ("self.default_value", True): [None, "d"],
    ("self.field", False): ["__defaults__", "__kwdefaults__"], ("self.idx_key", False): [0, "k"],
    ("self.source_name", False): ["__compiled_fn_1"],
}
NAMELESS = {"GlobalStateSource", "ShapeEnvSource", "BackwardStateSource", "TempLocalSource"}  # no name is printed


def _release_tree(version: str):
    """torch/_dynamo/source.py and guards.py of one release: the installed torch if it is that one, else its wheel."""
    from walkthrough.source import SourceError, WheelSource, fetch_wheel, open_source
    try:
        installed = open_source("installed")
    except SourceError:
        installed = None
    if installed is not None and installed.base_version == version:
        return installed
    try:
        return WheelSource(fetch_wheel(version))
    except SourceError as error:
        pytest.skip(f"torch {version}: {error}")


def _templates(text: str) -> dict[str, list[str]]:
    """Each Source subclass's name templates (``{0}`` for its base), its fields filled from FIELDS; a class whose
    template holds a field FIELDS lacks maps to ``['?field expr']`` so the test names it."""
    tree = ast.parse(text)
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}

    def method(name: str) -> ast.FunctionDef | None:
        for item in classes[name].body:
            if isinstance(item, ast.FunctionDef) and item.name in ("_name_template", "name"):
                return item
        bases = [ast.unparse(base) for base in classes[name].bases]
        return next((found for base in bases if base in classes and (found := method(base))), None)

    def is_source(name: str) -> bool:
        bases = [ast.unparse(base) for base in classes[name].bases]
        return any(base in ("Source", "ChainedSource") or base in classes and is_source(base) for base in bases)

    result = {}
    for name in classes:
        function = method(name) if is_source(name) else None
        if function is None:
            continue
        returns = [node.value for node in ast.walk(function) if isinstance(node, ast.Return) and node.value]
        templates: list[str] = []
        for value in returns:
            if ast.unparse(value) == "self._name":  # DefaultsSource sets its template in __post_init__
                returns += [call.args[2] for call in ast.walk(classes[name]) if isinstance(call, ast.Call)
                            and ast.unparse(call.func) == "object.__setattr__" and len(call.args) == 3
                            and ast.unparse(call.args[1]) == "'_name'"]
                continue
            templates += _fill(value)
        result[name] = templates
    return result


def _fill(value: ast.expr) -> list[str]:
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return [value.value]
    if isinstance(value, ast.Attribute) and ast.unparse(value) == "self.source_name":
        return FIELDS[("self.source_name", False)]
    if not isinstance(value, ast.JoinedStr):
        return [f"?{ast.unparse(value)}"]
    choices: list[list[str]] = []
    for part in value.values:
        if isinstance(part, ast.Constant):
            choices.append([part.value])
            continue
        expr = part.value
        if ast.unparse(expr) in ("self.base.name()", "self.base.name"):  # the older name() methods
            choices.append(["{0}"])
            continue
        inner, use_repr = expr, False
        if isinstance(expr, ast.Call) and ast.unparse(expr.func) == "_esc_str":
            inner = expr.args[0]
            use_repr = any(k.arg == "apply_repr" and ast.unparse(k.value) == "True" for k in expr.keywords)
        key = (ast.unparse(inner), use_repr)
        if key not in FIELDS:
            return [f"?{key[0]}"]
        choices.append([repr(v) if use_repr else str(v) for v in FIELDS[key]])
    return ["".join(parts) for parts in itertools.product(*choices)]


def _strip_local_scope(guards_text: str | None):
    """The release's own strip_local_scope (guards.py), which turns ``L['x']`` into ``x`` in failure reasons."""
    tree = ast.parse(guards_text or "")
    found = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "strip_local_scope"]
    if not found:
        return None
    scope: dict = {}
    exec(compile(ast.Module(body=found, type_ignores=[]), "guards.py", "exec"), scope)
    return scope["strip_local_scope"]


@pytest.mark.parametrize("version", [v if v in CHEAP else pytest.param(v, marks=pytest.mark.slow) for v in SUPPORTED])
def test_every_source_name_form_of_the_release_parses(version: str) -> None:
    tree = _release_tree(version)
    templates = _templates(tree.read("torch/_dynamo/source.py") or "")
    strip = _strip_local_scope(tree.read("torch/_dynamo/guards.py"))
    assert len(templates) > 40, f"torch {version}: too few Source classes read ({sorted(templates)})"
    unparsed = []
    for name, forms in sorted(templates.items()):
        if name in NAMELESS or not [form for form in forms if form]:
            continue
        for form in forms:
            text = form.replace("{0}", BASE) if "{0}" in form else form
            source = parse_source(text)
            stripped = parse_source(strip(text)) if strip else source
            ok = source is not None and str(source) == text and stripped is not None and str(stripped) == strip(text)
            if ok and "{0}" in form:  # a chained source keeps its base's root
                ok = source.root == Root("local", "self", "L['self']") and stripped.root.name == "self"
            if not ok:
                unparsed.append(f"{name}: {form!r} -> {text!r}")
    assert not unparsed, f"torch {version}: name forms the grammar does not read:\n" + "\n".join(unparsed)


@pytest.mark.slow
def test_forms_that_differ_between_releases() -> None:
    """The one printed form that changed across 2.11-2.15: a set's item (``list(s)[i]`` before 2.14)."""
    seen = {}
    for version in SUPPORTED:
        try:
            tree = _release_tree(version)
        except pytest.skip.Exception:
            continue
        seen[version] = _templates(tree.read("torch/_dynamo/source.py") or "")
    if not {"2.13.0", "2.14.1"} <= set(seen):
        pytest.skip("needs the 2.13.0 and 2.14.1 sources")
    assert seen["2.13.0"]["NonSerializableSetGetItemSource"][0].startswith("list({0})[")
    assert seen["2.14.1"]["NonSerializableSetGetItemSource"][0].startswith("___set_getitem({0}, ")
    for text in ("list(L['s'])[0]", "___set_getitem(L['s'], 0)"):
        assert user_name(parse_source(text)) in ("list(s)[0]", "s[0]")


# ---- the guard texts the project recorded ------------------------------------------------------------------------

def _recorded() -> list[tuple[str, str]]:
    """(where, text) for every recompile reason and guard tree in recorded traces and in this test's own texts."""
    texts = []
    paths = [*glob.glob(str(ROOT / "docs" / "_traces" / "**" / "*.json"), recursive=True),
             *glob.glob(str(ROOT / "tests" / "data" / "**" / "*.json"), recursive=True)]
    for path in sorted(paths):
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (ValueError, OSError):
            continue
        if isinstance(data, dict) and "recompiles" in data and "guards" in data:  # texts-<release>.json
            texts += [(path, text) for text in data["recompiles"] + data["guards"]]
            continue
        artifacts = data.get("artifacts") if isinstance(data, dict) else None
        for artifact in artifacts if isinstance(artifacts, list) else []:
            if isinstance(artifact, dict) and artifact.get("kind") in ("recompile", "guards"):
                reasons = (artifact.get("metadata") or {}).get("reasons") or []
                texts += [(path, text) for text in [artifact.get("payload") or "", *reasons] if text]
    return texts


def test_every_source_in_recorded_guard_texts_parses() -> None:
    texts = _recorded()
    assert len(texts) > 50
    bad, tree_sources = [], 0
    for where, text in texts:
        for line in text.splitlines():
            if "source=" in line:  # a guard tree node: its whole source must be one source
                tree_sources += 1
                found = find_sources(line)
                if len(found) != 1:
                    bad.append(f"{where}: no source read in {line.strip()[:160]!r}")
        for (start, end), source in find_sources(text):
            if str(source) != text[start:end] or source.root.kind == "unknown":
                bad.append(f"{where}: {text[start:end]!r} read as {source}")
    assert tree_sources > 1000
    assert not bad, "\n".join(sorted(set(bad))[:40])


def test_recorded_failure_reasons_in_the_users_names() -> None:
    """Real 2.13 failure reasons (tests/data/guard_sources/record_texts.py) said in the names the program used."""
    data = json.loads((DATA / "texts-2.13.0.json").read_text(encoding="utf-8"))
    said = []
    for text in data["recompiles"]:
        for _, source in find_sources(text):
            named = naming(source)
            said.append(named.name if named.stack is None else f"stack {named.stack}")
    for name in ("x", "factor", "items", "fn", "self.alpha", "input_ids", "args[0]", "args", "mask", "n",
                 "stack 2", "g.__closure__[0].cell_contents", "g.__defaults__[0]", "g.__kwdefaults__['j']"):
        assert name in said, (name, said)


def test_the_call_site_is_the_call_of_a_named_object_not_of_a_result() -> None:
    """``loss = model(x).pow(2).mean()``: the compiled object is ``model``, called with ``x``."""
    assert call_site("loss = model(x).pow(2).mean()") == (["x"], {})
    assert call_site("out = self.net(batch['pixels'], mask=m).logits") == (["batch['pixels']"], {"mask": "m"})
    assert call_site("total = 1 + 2") is None
    # Several calls of named objects: which one reached the compiled function is not in the text (a live trace reads
    # it from the caller's frame instead).
    assert call_site("loss = F.cross_entropy(model(images), labels)") is None


@pytest.mark.parametrize(("source", "passed", "said"), [
    ("x", {"x": "images"}, "images"),
    ("kwargs['input_ids']", {"kwargs['input_ids']": "ids"}, "ids"),
    ("args[1]", {"args[0]": "a", "args[1]": "batch['mask']"}, "batch['mask']"),
    ("x", {"x": "torch.randn(4, 16)"}, None),  # an expression that makes the value is no name: `x` says it better
    ("kwargs['pixel_values']", {"kwargs['pixel_values']": "torch.randn(2, 3)"}, None),  # the keyword says it
    ("args[0]", {"args[0]": "torch.randn(size, 16)"}, "torch.randn(size, 16)"),  # only the expression names it
    ("x", {"scale": "s"}, None),
    ("self.calls", {"x": "images"}, None),
])
def test_a_parameter_is_said_as_what_the_users_call_passed(source, passed, said) -> None:
    assert map_passed(parse_source(source), passed) == said
