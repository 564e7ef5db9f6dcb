"""PlayTrace test suite (a package so test helpers such as tests.loopback can be imported)."""
