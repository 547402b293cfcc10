"""Reading the API's patience from the environment: names, fallbacks, bad values."""

from __future__ import annotations

from agentcli.providers.retry import RetryPolicy, Timeouts
from agentcli.providers.tuning import ApiTuning


def test_nothing_set_gives_the_defaults():
    tuning = ApiTuning.from_env({})

    assert tuning.retry == RetryPolicy()
    assert tuning.timeouts == Timeouts()
    assert tuning.retry.max_total_s == 600.0 and tuning.timeouts.idle_s == 120.0
    assert tuning.problems == ()


def test_each_variable_sets_its_value():
    tuning = ApiTuning.from_env(
        {
            "AGENTCLI_MAX_RETRIES": "3",
            "AGENTCLI_RETRY_BASE_DELAY_MS": "0",
            "AGENTCLI_RETRY_MAX_TOTAL_MS": "90000",
            "AGENTCLI_STREAM_IDLE_TIMEOUT_MS": "30000",
        }
    )

    assert tuning.retry == RetryPolicy(max_retries=3, base_delay_s=0.0, max_total_s=90.0)
    assert tuning.timeouts.idle_s == 30.0
    assert tuning.problems == ()


def test_claude_codes_api_timeout_ms_is_the_fallback_for_the_idle_timeout():
    assert ApiTuning.from_env({"API_TIMEOUT_MS": "600000"}).timeouts.idle_s == 600.0
    both = {"API_TIMEOUT_MS": "600000", "AGENTCLI_STREAM_IDLE_TIMEOUT_MS": "5000"}
    assert ApiTuning.from_env(both).timeouts.idle_s == 5.0


def test_a_bad_value_is_named_and_the_next_source_used():
    tuning = ApiTuning.from_env({"AGENTCLI_STREAM_IDLE_TIMEOUT_MS": "0", "API_TIMEOUT_MS": "45000"})

    assert tuning.timeouts.idle_s == 45.0
    assert tuning.problems == (
        "AGENTCLI_STREAM_IDLE_TIMEOUT_MS=0 is not a number of milliseconds above 0; using 45000",
    )


def test_bad_values_never_raise():
    for raw in ("", "  ", "abc", "-1", "nan", "inf", "1e400", "3.5", "0x10"):
        tuning = ApiTuning.from_env(
            {
                "AGENTCLI_MAX_RETRIES": raw,
                "AGENTCLI_RETRY_BASE_DELAY_MS": raw,
                "AGENTCLI_RETRY_MAX_TOTAL_MS": raw,
                "AGENTCLI_STREAM_IDLE_TIMEOUT_MS": raw,
                "API_TIMEOUT_MS": raw,
            }
        )
        assert tuning.retry == RetryPolicy() or raw == "3.5"
        assert all("\n" not in problem for problem in tuning.problems)


def test_blank_means_unset():
    assert ApiTuning.from_env({"AGENTCLI_MAX_RETRIES": "  "}).problems == ()
