"""Human-baseline studies: the study file, participants, orders and questionnaires."""
