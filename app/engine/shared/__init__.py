"""What every challenge interface shares and no one interface owns: the verdict vocabulary
(verdicts.py) and how a hidden suite is judged (judging.py). Interface folders import this package,
never each other."""
