"""lancepart.progress: bars advance once per item, and progress=False draws nothing."""

from lancepart.progress import iterate


def test_iterate_yields_every_item_and_counts_them(capsys):
    assert list(iterate(range(7), "reading", 7, progress=True, unit="table")) == list(range(7))
    err = capsys.readouterr().err
    assert "reading" in err and "7/7" in err


def test_iterate_draws_nothing_when_off(capsys):
    assert list(iterate(["a", "b"], "reading", 2, progress=False, unit="table")) == ["a", "b"]
    assert capsys.readouterr().err == ""
