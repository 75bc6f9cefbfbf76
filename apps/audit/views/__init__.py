"""Audit pages: campaigns and the queue, the keyboard audit view, adjudication, the dashboard."""
