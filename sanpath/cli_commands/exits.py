"""The exit codes of ``sanpath``: success, a check that found problems, bad input."""

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_BAD_INPUT = 2
