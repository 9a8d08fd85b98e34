"""The walkthrough for every supported torch release: the release list, source trees, drift display data, per-release builds."""
