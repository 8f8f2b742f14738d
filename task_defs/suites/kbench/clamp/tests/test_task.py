# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import kbtest as kb

m = kb.load("clamp.py")
clamp = kb.func(m, "clamp")


def same(got, want, what):
    """Equal value and the same type (3 and 3.0 are not the same result here)."""
    kb.ok(type(got) is type(want) and got == want, "%s: expected %r, got %r" % (what, want, got))


@kb.case
def inside_is_unchanged():
    same(clamp(5, 0, 10), 5, "clamp(5, 0, 10)")
    same(clamp(-3, -7, 2), -3, "clamp(-3, -7, 2)")
    same(clamp(0.25, 0.0, 1.0), 0.25, "clamp(0.25, 0.0, 1.0)")


@kb.case
def below_and_above():
    same(clamp(-4, 0, 10), 0, "clamp(-4, 0, 10)")
    same(clamp(11, 0, 10), 10, "clamp(11, 0, 10)")
    same(clamp(-100, -50, -20), -50, "clamp(-100, -50, -20)")
    same(clamp(-1, -50, -20), -20, "clamp(-1, -50, -20)")
    same(clamp(10**30, 0, 10**20), 10**20, "clamp(10**30, 0, 10**20)")


@kb.case
def on_the_bounds():
    same(clamp(0, 0, 10), 0, "clamp(0, 0, 10)")
    same(clamp(10, 0, 10), 10, "clamp(10, 0, 10)")
    same(clamp(2.5, 2.5, 2.5), 2.5, "clamp(2.5, 2.5, 2.5)")
    same(clamp(1, 3, 3), 3, "clamp(1, 3, 3)")
    same(clamp(9, 3, 3), 3, "clamp(9, 3, 3)")


@kb.case
def mixed_ints_and_floats_keep_their_type():
    same(clamp(3, 0.0, 10.0), 3, "clamp(3, 0.0, 10.0)")
    same(clamp(2, 0.5, 1.5), 1.5, "clamp(2, 0.5, 1.5)")
    same(clamp(0.1, 1, 5), 1, "clamp(0.1, 1, 5)")
    same(clamp(7.75, 1, 5), 5, "clamp(7.75, 1, 5)")
    same(clamp(1e-9, -1, 1), 1e-9, "clamp(1e-9, -1, 1)")


@kb.case
def equal_to_a_bound_of_the_other_type_returns_x():
    # x is neither less than low nor greater than high, so x itself comes back, not the equal bound
    same(clamp(3, 3.0, 5), 3, "clamp(3, 3.0, 5)")
    same(clamp(5.0, 0, 5), 5.0, "clamp(5.0, 0, 5)")
    same(clamp(2, 2.0, 2.0), 2, "clamp(2, 2.0, 2.0)")
    same(clamp(-1.0, -1, 4), -1.0, "clamp(-1.0, -1, 4)")


@kb.case
def low_above_high_raises():
    kb.raises(ValueError, clamp, 5, 10, 0)
    kb.raises(ValueError, clamp, 0, 1, -1)
    kb.raises(ValueError, clamp, 1.0, 2.5, 2.4)
    kb.raises(ValueError, clamp, 2.45, 2.5, 2.4)  # x between the bad bounds: still an error


kb.main()
