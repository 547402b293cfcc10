from tests.web.site import site  # noqa: F401  (re-exported fixture)
