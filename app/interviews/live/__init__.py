"""A live interview: following the candidate, private notes, messages to the candidate, keystroke playback."""
