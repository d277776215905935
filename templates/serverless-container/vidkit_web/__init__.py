"""The serverless-container template: an ASGI app whose renders run in a spawned function."""
