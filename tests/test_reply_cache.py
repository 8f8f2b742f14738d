"""The reply cache: one file of whole lines that several processes share, readable after a kill mid-write."""

import json

from sandbox.engine.reply_cache import PACK, ReplyCache


def test_a_reply_kept_by_one_process_is_found_by_another_that_read_the_file_before(tmp_path):
    mine, theirs = ReplyCache(tmp_path), ReplyCache(tmp_path)
    mine.put("a" * 64, {"content": "first"})
    assert theirs.get("a" * 64) == {"content": "first"}
    assert theirs.get("b" * 64) is None  # read to the end: a miss is a miss
    mine.put("b" * 64, {"content": "second"})
    assert theirs.get("b" * 64) == {"content": "second"}  # the miss reads on from where it stopped


def test_a_line_torn_by_a_kill_is_a_miss_and_the_next_reply_still_lands_whole(tmp_path):
    ReplyCache(tmp_path).put("a" * 64, {"content": "kept"})
    with open(tmp_path / PACK, "ab") as fh:  # a writer killed mid-line
        fh.write(b'{"key": "' + b"c" * 64 + b'", "reply": {"cont')
    cache = ReplyCache(tmp_path)
    assert cache.get("c" * 64) is None
    cache.put("d" * 64, {"content": "after"})
    fresh = ReplyCache(tmp_path)
    assert fresh.get("a" * 64) == {"content": "kept"} and fresh.get("d" * 64) == {"content": "after"}
    assert fresh.get("c" * 64) is None
    lines = (tmp_path / PACK).read_bytes().split(b"\n")
    assert json.loads(lines[-2])["key"] == "d" * 64  # on a line of its own, never glued to the fragment


def test_a_cache_kept_as_a_file_per_reply_is_still_read(tmp_path):
    key = "ef" + "0" * 62
    (tmp_path / key[:2]).mkdir()
    (tmp_path / key[:2] / f"{key}.json").write_text(json.dumps({"content": "old layout"}))
    assert ReplyCache(tmp_path).get(key) == {"content": "old layout"}
    (tmp_path / key[:2] / f"{key}.json").write_text("{not json")
    assert ReplyCache(tmp_path).get(key) is None


def test_a_reply_that_cannot_be_encoded_as_it_is_is_kept_escaped(tmp_path):
    ReplyCache(tmp_path).put("a" * 64, {"content": "name \udcff"})  # a lone surrogate, as from a file name
    got = ReplyCache(tmp_path).get("a" * 64)
    assert got is not None and "\udcff" not in got["content"]


def test_a_reply_kept_under_the_earlier_key_is_found_by_the_same_request(tmp_path):
    """Keys were the json module's text until 2026-12-03: a cache made then is not paid for again."""
    asked = {"url": "http://127.0.0.1:1/v1", "attempt": 1, "model": "m", "messages": [{"role": "user", "content": "é"}]}
    ReplyCache(tmp_path).put(ReplyCache.earlier_key(asked), {"content": "kept before"})
    cache = ReplyCache(tmp_path)
    assert ReplyCache.key(asked) != ReplyCache.earlier_key(asked)
    assert cache.get(ReplyCache.key(asked)) is None  # the key alone does not reach it
    assert cache.get(ReplyCache.key(asked), asked) == {"content": "kept before"}
    old = tmp_path / "older"  # the layout of a file per reply, named by the earlier key
    (old / ReplyCache.earlier_key(asked)[:2]).mkdir(parents=True)
    (old / ReplyCache.earlier_key(asked)[:2] / f"{ReplyCache.earlier_key(asked)}.json").write_text(
        json.dumps({"content": "a file of its own"}))
    assert ReplyCache(old).get(ReplyCache.key(asked), asked) == {"content": "a file of its own"}
