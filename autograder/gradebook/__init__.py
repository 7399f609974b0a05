"""nbgrader: the course folder, student versions, the gradebook database, records and feedback."""
