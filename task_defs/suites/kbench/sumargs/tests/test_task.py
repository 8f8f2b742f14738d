# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import kbtest as kb


def ok_sum(args, want):
    rc, out, err = kb.run(["bash", "sumargs.sh"] + list(args))
    kb.eq(rc, 0, "exit status for %r (stderr %r)" % (args, err[-200:]))
    kb.eq(out.strip(), want, "stdout for %r" % (args,))
    kb.eq(len(out.strip().splitlines()), 1, "number of stdout lines for %r" % (args,))


def bad(args):
    rc, out, err = kb.run(["bash", "sumargs.sh"] + list(args))
    kb.eq(rc, 2, "exit status for %r" % (args,))
    kb.eq(out, "", "stdout for %r (must be empty)" % (args,))
    kb.ok(err.strip() != "", "an error message on stderr for %r" % (args,))


@kb.case
def positive_numbers():
    ok_sum(["1", "2", "3"], "6")
    ok_sum(["100"], "100")
    ok_sum(["0", "0"], "0")


@kb.case
def negative_numbers():
    ok_sum(["10", "-3", "-20"], "-13")
    ok_sum(["-5"], "-5")
    ok_sum(["-7", "7"], "0")


@kb.case
def no_arguments():
    ok_sum([], "0")


@kb.case
def leading_zeros_are_decimal():
    ok_sum(["010"], "10")
    ok_sum(["08", "09"], "17")
    ok_sum(["007", "-010", "0"], "-3")
    ok_sum(["-0"], "0")


@kb.case
def large_values():
    ok_sum(["4000000000", "5000000000"], "9000000000")
    ok_sum(["9223372036854775807"], "9223372036854775807")
    ok_sum(["-9223372036854775807", "-1"], "-9223372036854775808")


@kb.case
def non_integers_rejected():
    for arg in ["abc", "1.5", "", "3x", "-", "+3", "1 2", "0x10", "--5", " 4", "4 ", "1-2", "5-", "1e3"]:
        bad([arg])


@kb.case
def bad_argument_after_good_ones_prints_nothing():
    bad(["1", "2", "three"])
    bad(["5", "-2", "7", "2.0"])


@kb.case
def line_breaks_are_not_part_of_an_integer():
    for args in [["5\n"], ["\n5"], ["1\n2"], ["7", "3\n"], ["4\r"], ["-2\n"]]:
        bad(args)


kb.main()
