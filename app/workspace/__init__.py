"""The candidate workspace: drafts and their snapshots, hints taken, and what the editor reports."""
