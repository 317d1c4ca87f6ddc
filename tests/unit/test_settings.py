"""Grouped settings: environment variables fill their groups, presets override by name, bad values are named,
secrets never show in a dump."""

from __future__ import annotations

import pytest

from agent.settings.app import Settings, SettingsError, get_settings, load_preset, presets


@pytest.fixture(autouse=True)
def fresh_settings():
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_variables_fill_their_groups(monkeypatch):
    monkeypatch.setenv("TOP_DOCS", "7")
    monkeypatch.setenv("RETRIEVAL_DEPTH", "20")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    s = Settings(_env_file=None)  # type: ignore[call-arg]
    assert s.judge.top_docs == 7 and s.retrieval.depth == 20
    assert s.llm.api_key is not None and s.llm.api_key.get_secret_value() == "sk-test"
    assert s.llm.resolved_provider() == "openai"


def test_prefixed_groups_read_their_prefixed_variables(monkeypatch):
    monkeypatch.setenv("LIVE_RESULTS", "7")
    monkeypatch.setenv("LLM_TIMEOUT", "30")
    monkeypatch.setenv("EMBEDDED_THREADS", "1")
    monkeypatch.setenv("CLAIMTRACE_UI_USER", "ana")
    s = Settings(_env_file=None)  # type: ignore[call-arg]
    assert (s.live.results, s.llm.timeout, s.llm.embedded_threads, s.ui.user) == (7, 30.0, 1, "ana")
    monkeypatch.setenv("LIVE_RESULTS", "0")
    with pytest.raises(SettingsError, match="LIVE_RESULTS"):
        get_settings()


def test_defaults_are_the_shipped_behaviour():
    s = Settings(_env_file=None)  # type: ignore[call-arg]
    assert (s.judge.top_docs, s.judge.candidates_per_doc, s.judge.sentences_per_doc, s.judge.labelled_docs) == (
        3, 3, 2, 0)
    assert (s.retrieval.depth, s.retrieval.rrf_k, s.retrieval.rerank_top, s.retrieval.max_questions) == (50, 5, 0, 5)
    assert (s.llm.max_tokens, s.answer.top_attribution, s.answer.max_title_chars) == (300, 2, 120)


def test_presets_override_some_fields_and_keep_the_rest(monkeypatch):
    monkeypatch.setenv("TOP_DOCS", "4")
    assert {"default", "rerank", "label_all"} <= set(presets())
    rerank = load_preset("rerank")
    assert rerank.retrieval.rerank_top == 10 and rerank.judge.top_docs == 4
    label_all = load_preset("label_all")
    assert (label_all.judge.top_docs, label_all.judge.labelled_docs, label_all.retrieval.rerank_top) == (5, 0, 10)
    with pytest.raises(SettingsError, match="unknown preset 'fast'"):
        load_preset("fast")


def test_a_preset_with_a_misspelt_setting_is_refused(tmp_path, monkeypatch):
    import agent.settings.app

    (tmp_path / "typo.json").write_text('{"judge": {"topdocs": 5}, "retreival": {}}')
    monkeypatch.setattr(agent.settings.app, "PRESETS_DIR", tmp_path)
    with pytest.raises(SettingsError, match=r"judge\.topdocs, retreival"):
        load_preset("typo")


def test_preset_from_the_environment(monkeypatch):
    monkeypatch.setenv("PRESET", "rerank")
    assert get_settings().retrieval.rerank_top == 10


def test_a_bad_value_names_its_variable(monkeypatch):
    monkeypatch.setenv("TOP_DOCS", "three")
    with pytest.raises(SettingsError, match="TOP_DOCS"):
        get_settings()
    monkeypatch.setenv("TOP_DOCS", "3")
    monkeypatch.setenv("LLM_PROVIDER", "gpt")
    with pytest.raises(SettingsError, match="LLM_PROVIDER"):
        get_settings()


def test_with_values_validates_and_copies():
    s = Settings(_env_file=None).with_values(live={"sources": "auto"})  # type: ignore[call-arg]
    local = s.with_values(live={"sources": "pubmed, local"})
    assert local.live.sources == "local,pubmed" and s.live.sources == "auto"
    with pytest.raises(ValueError):
        s.with_values(live={"sources": "scopus"})


def test_secrets_are_masked_in_the_dump(monkeypatch):
    monkeypatch.setenv("LLM_API_KEY", "sk-very-secret")
    monkeypatch.setenv("CLAIMTRACE_UI_PASSWORD", "hunter2")
    monkeypatch.setenv("NCBI_API_KEY", "ncbi-secret")
    dump = str(Settings(_env_file=None).public_dump())  # type: ignore[call-arg]
    assert "sk-very-secret" not in dump and "hunter2" not in dump and "ncbi-secret" not in dump
    assert "**********" in dump


def test_the_checkpoint_url_password_is_masked_in_the_dump(monkeypatch):
    monkeypatch.setenv("CHECKPOINT_URL", "postgresql://ana:pg-s3cret@db.example:5432/threads")
    monkeypatch.setenv("CHAINLIT_AUTH_SECRET", "auth-s3cret")
    dump = Settings(_env_file=None).public_dump()  # type: ignore[call-arg]
    assert dump["stores"]["checkpoint_url"] == "postgresql://ana:**********@db.example:5432/threads"
    assert "pg-s3cret" not in str(dump) and "auth-s3cret" not in str(dump)


URL_VARIABLES = [
    "LLM_BASE_URL",
    "CHROMA_URL",
    "CORPUS_URL",
    "EUROPEPMC_BASE_URL",
    "NCBI_BASE_URL",
    "OPENALEX_BASE_URL",
    "S2_BASE_URL",
    "CLAIMTRACE_UI_ORIGINS",
]


@pytest.mark.parametrize("variable", URL_VARIABLES)
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("file:///etc/passwd", "must start with http:// or https://"),
        ("ftp://mirror.example/data", "must start with http:// or https://"),
        ("127.0.0.1:8001", "must start with http:// or https://"),
        ("javascript:alert(1)", "must start with http:// or https://"),
        ("http:///v1", "must name a host"),
        ("https://user:sk-in-url@api.example/v1", "must not hold a user name or password"),
        ("http://127.0.0.1:99999/v1", "port"),
    ],
)
def test_base_urls_accept_only_http_and_never_repeat_the_value(monkeypatch, variable, value, message):
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError) as e:
        get_settings()
    assert variable in str(e.value) and message in str(e.value)
    assert value not in str(e.value) and "sk-in-url" not in str(e.value)


def test_http_and_https_base_urls_pass_and_an_empty_one_is_unset(monkeypatch):
    monkeypatch.setenv("LLM_BASE_URL", "http://127.0.0.1:11434/v1")
    monkeypatch.setenv("CHROMA_URL", "HTTPS://chroma.example")
    monkeypatch.setenv("NCBI_BASE_URL", "https://eutils.mirror.example/entrez/eutils")
    monkeypatch.setenv("CLAIMTRACE_UI_ORIGINS", "https://claims.example.org/, http://lab-pc:8000")
    s = get_settings()
    assert (s.llm.base_url, s.stores.chroma_url) == ("http://127.0.0.1:11434/v1", "HTTPS://chroma.example")
    assert s.live.ncbi_base_url == "https://eutils.mirror.example/entrez/eutils"
    assert s.ui.origins == ["https://claims.example.org", "http://lab-pc:8000"]
    monkeypatch.setenv("LLM_BASE_URL", "")
    monkeypatch.setenv("CLAIMTRACE_UI_PASSWORD", "")
    get_settings.cache_clear()
    s = get_settings()
    assert s.llm.base_url is None and s.llm.resolved_provider() in {"embedded", "openai"}
    assert s.ui.password is None
