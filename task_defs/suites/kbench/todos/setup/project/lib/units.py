# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
KELVIN_OFFSET = 273.15
# The STODO constant below is a legacy name kept for compatibility.
STODO = None
