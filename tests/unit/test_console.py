"""Questions that ask what a program prints, and console output blocks."""

from __future__ import annotations

from lectern.writers.console import asks_for_output, is_output


def test_a_question_that_asks_for_the_output() -> None:
    assert asks_for_output("How many files should the backup script say it copied?")
    assert asks_for_output("What does the linter print when the file is clean?")
    assert asks_for_output("which port does the server report on startup?")


def test_a_quoted_symptom_or_another_question_is_not_asking_for_output() -> None:
    assert not asks_for_output("The backup script says permission denied. What do I do?")
    assert not asks_for_output("How do I install the linter?")
    assert not asks_for_output("Why does the server need a port?")


def test_an_output_block_has_no_language_and_no_typed_command() -> None:
    assert is_output("```\nCopied 42 files to /mnt/backup\nDone in 3.1 s\n```")
    assert is_output("```console\nServer listening on port 8080\n```")
    assert not is_output("```bash\n./backup.sh --dry-run\n```")  # a language: code to run
    assert not is_output("```\n$ ./backup.sh\nCopied 42 files\n```")  # a session with its command
    assert not is_output("```\n\n```")
