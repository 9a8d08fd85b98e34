"""The words every wing, the page and the walkthrough share: releases and source links, built sites, usage errors.

Standard library only, and below every wing: ``report/`` and ``walkthrough/`` read it without ``capture/``."""
