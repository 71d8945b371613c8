"""Figures of a report; each module draws one kind and returns style.Figure or style.Skipped."""
