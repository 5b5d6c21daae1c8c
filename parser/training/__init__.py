"""Training scripts for the parser's small learned parts (run by hand; never imported by the parser at run time)."""
