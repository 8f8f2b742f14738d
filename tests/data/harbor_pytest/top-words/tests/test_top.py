from pathlib import Path


def test_the_three_most_frequent_words_in_order():
    assert Path("/app/top.txt").read_text().split() == ["apple", "pear", "fig"]


def test_the_words_are_left_as_they_were():
    assert Path("/app/words.txt").read_text().split().count("apple") == 4
