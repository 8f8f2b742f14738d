# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def fizzbuzz(n):
    out = []
    for i in range(1, n):
        out.append("FizzBuzz" if i % 15 == 0 else "Fizz" if i % 3 == 0 else "Buzz" if i % 5 == 0 else str(i))
    return out
