"""The shared vocabulary (``server/base``): the fake clock, the error codes, the test hooks."""
