"""`kbench trials run --sample K`: a stratified K of each family, fixed by the trial ids."""

from collections import Counter

import pytest

from sandbox.chatwork.trials import ToolTrials, select_trials


@pytest.fixture(scope="module")
def kind():
    return ToolTrials()


def test_a_sample_spreads_over_grades_and_sources_and_is_stable(kind):
    picked = select_trials(kind, None, None, 12)
    by_family = Counter(u.family.id for u in picked)
    assert set(by_family) == {f.id for f in kind.families}
    assert all(n == min(12, sum(u.family.id == fam for u in kind.units)) for fam, n in by_family.items())
    for fam in by_family:
        members = [u for u in kind.units if u.family.id == fam]
        strata = {(u.grade, u.trial.source) for u in members}
        got = {(u.grade, u.trial.source) for u in picked if u.family.id == fam}
        assert len(got) == min(len(strata), 12), fam  # every stratum is reached before any gets a second
    assert [u.id for u in select_trials(kind, None, None, 12)] == [u.id for u in picked]
    larger = {u.id for u in select_trials(kind, None, None, 20)}
    assert {u.id for u in picked} <= larger  # a larger sample keeps the smaller one


def test_a_sample_and_a_limit_do_not_mix(kind):
    with pytest.raises(ValueError, match="not both"):
        select_trials(kind, None, 3, 3)
    with pytest.raises(ValueError, match="--sample must be a positive"):
        select_trials(kind, None, None, 0)
