"""The one run loop: run specs, work kinds, records, regrading, server slots and conditions."""
