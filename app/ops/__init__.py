"""Operating the app: structured logs with request ids, Prometheus metrics, health and readiness."""
