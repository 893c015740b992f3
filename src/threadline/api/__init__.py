"""The HTTP API: the FastAPI app, its dependencies, schemas, errors and routes."""
