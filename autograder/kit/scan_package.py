"""The answer scan of the course's autograder, as the student bundle carries it for self_check.py."""
