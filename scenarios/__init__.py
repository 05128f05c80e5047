"""Scenario files (TOML rule sets and house-rule overlays) and their strict loader."""

from scenarios.loader import Scenario, ScenarioError, default_scenario_path, load_scenario

__all__ = ["Scenario", "ScenarioError", "default_scenario_path", "load_scenario"]
