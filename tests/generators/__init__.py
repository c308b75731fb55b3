"""Requests made from the schema, for the tests that send them: ``schema`` (values of its types, the
fields a caller's text enters by) and ``requests`` (hostile requests to /graphql, from a seed)."""
