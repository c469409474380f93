"""Web helpers every page module may use, in app/web or in a domain: parameters, rendering, responses, URLs."""
