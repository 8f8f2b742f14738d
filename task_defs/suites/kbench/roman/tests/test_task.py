# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import kbtest as kb

m = kb.load("roman.py")
to_roman = kb.func(m, "to_roman")
from_roman = kb.func(m, "from_roman")

KNOWN = {1: "I", 3: "III", 4: "IV", 5: "V", 9: "IX", 14: "XIV", 40: "XL", 44: "XLIV", 49: "XLIX", 90: "XC",
         99: "XCIX", 400: "CD", 444: "CDXLIV", 500: "D", 900: "CM", 1994: "MCMXCIV", 2024: "MMXXIV",
         3888: "MMMDCCCLXXXVIII", 3999: "MMMCMXCIX"}


def reference(n):
    """The test's own canonical spelling, digit by digit."""
    ones = ["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"]
    tens = ["", "X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"]
    hundreds = ["", "C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"]
    return "M" * (n // 1000) + hundreds[n // 100 % 10] + tens[n // 10 % 10] + ones[n % 10]


def raises_for(exc_types, fn, *args):
    """kb.raises, naming the call in the failure message."""
    try:
        kb.raises(exc_types, fn, *args)
    except AssertionError as exc:
        raise AssertionError("%s(%s): %s" % (getattr(fn, "__name__", "call"), ", ".join(repr(a) for a in args), exc)) from None


@kb.case
def to_roman_known_values():
    for n, text in KNOWN.items():
        kb.eq(to_roman(n), text, "to_roman(%d)" % n)


@kb.case
def from_roman_known_values():
    for n, text in KNOWN.items():
        got = from_roman(text)
        kb.eq(got, n, "from_roman(%r)" % text)
        kb.ok(type(got) is int, "from_roman(%r) must return an int, got %r" % (text, got))


@kb.case
def every_number_round_trips():
    for n in range(1, 4000):
        text = to_roman(n)
        kb.eq(text, reference(n), "to_roman(%d)" % n)
        kb.eq(from_roman(text), n, "from_roman(%r)" % text)


@kb.case
def to_roman_rejects_bad_input():
    for bad in [0, -1, 4000, 10000, 3.0, "12", None, True, False]:
        raises_for(ValueError, to_roman, bad)


@kb.case
def from_roman_rejects_non_canonical():
    for bad in ["", "IIII", "IC", "VV", "IIV", "XCX", "MMMM", "iv", "Mcm", "LL", "DD", "VX", "XM", "IM", "XD",
                "CMM", "IXI", "XXXX", "CCCC", "LXL", "IVI", "DCD", " X", "X ", "ABC", "MMMCMXCIXI", "0",
                "X\n", "XIV\n", "MCMXCIV\n", "\nX", "IV\r\n", "\tV", "\n"]:
        raises_for(ValueError, from_roman, bad)


@kb.case
def from_roman_rejects_non_strings():
    for bad in [None, 12, ["X"], b"X"]:
        raises_for(ValueError, from_roman, bad)


kb.main()
