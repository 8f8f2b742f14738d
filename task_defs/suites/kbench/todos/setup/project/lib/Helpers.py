# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def c_to_f(celsius):
    return celsius * 9 / 5 + 32  # rounding? TODO
