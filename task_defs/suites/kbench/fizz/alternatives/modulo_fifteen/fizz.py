# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
WORDS = {0: "FizzBuzz", 3: "Fizz", 6: "Fizz", 9: "Fizz", 12: "Fizz", 5: "Buzz", 10: "Buzz"}


def fizzbuzz(n):
    return [WORDS.get(i % 15, str(i)) for i in range(1, max(n, 0) + 1)]
