"""The importers of tasks written in other formats: JSON task fixtures, SWE-style datasets and Harbor task folders,
each loaded, checked and turned into ordinary task folders (task_defs/importers/models.py)."""
