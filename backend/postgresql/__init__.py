"""FactCrowd's PostgreSQL database backend: Django's, with a health check that costs no round trip."""
