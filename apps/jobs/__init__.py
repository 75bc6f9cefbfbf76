"""One job lifecycle (DESIGN.md, "One thing, one place"): the status every job kind shares, the
registry of kinds, Celery dispatch with cancel, expiry and a watchdog, the websocket broadcast
and one REST router over every kind.

A kind keeps its own table (an app's model inheriting `apps.jobs.models.Job`) and its own run;
it registers itself in its app's `jobs.py`, which this app discovers when Django is ready."""
