"""The two ways a request fails: the library cannot do the case (Unsupported: the harness
records it as skipped with the reason) or anything else (AdapterError: an error record)."""


class AdapterError(Exception):
    pass


class Unsupported(AdapterError):
    pass
