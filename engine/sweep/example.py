"""The sweep file that ``playtrace sweep init`` writes: small, commented, offline (no key, no network)."""

from __future__ import annotations

__all__ = ["EXAMPLE"]

EXAMPLE = '''\
# A PlayTrace sweep: every game x every player lineup x every harness setting x every seed.
# Run it:        playtrace sweep THIS_FILE --out results
# Resume it:     the same command again (only the missing episodes are played)
# See it:        playtrace sweep report results
# On Ray:        playtrace sweep THIS_FILE --out results --ray local   (or --ray ADDRESS)

name = "offline-example"
seeds = [0, 1, 2]          # one episode per seed in every cell (or: episodes = 3, first_seed = 0)
max_steps = 30             # stop an episode after this many steps (a [[games]] table may set its own)
concurrency = 4            # episodes played at once

# Player lineups, as `playtrace run --player` takes them: "random" fills every seat,
# ["minimax", "sim"] is one spec per seat. sim is the offline simulated model.
players = ["random", "sim", "sim:careless"]

[[games]]
id = "tictactoe"
# players = [["minimax", "sim"], ["sim", "minimax"]]   # lineups for this game only

[[games]]
id = "2048"
options = {}               # the game's options (see `playtrace games`)
max_steps = 20

# The harness grid, for model players (bots ignore it). A single value holds for every setting,
# a list is an axis of the grid; [[harness.settings]] tables are named settings, crossed with the axes.
# Keys: perception ("text", "image", "both", "describe"), perception_model, action_format ("text",
# "json", "tools"), logprobs, image_labels, memory,
# reflection, thinking, thinking_budget, effort, temperature, prompt_variant, timeout, reask, retries,
# fallback, max_failed_calls, strikes, sim_error_rate, sim_api_error_rate, sim_latency.
[harness]
perception = "text"
sim_latency = 0.0          # the simulated model answers at once (no streaming delay)

[[harness.settings]]
name = "no-memory"
memory = 0
reflection = false

[[harness.settings]]
name = "memory"
memory = 4
reflection = true

[budget]                   # US dollars, for paid models
# sweep_usd = 5.0          # stop starting episodes once the whole sweep has cost this
# session_hard_usd = 0.25  # a session that costs this forfeits

[limits]                   # episodes at once per provider or base URL (enforced across a Ray cluster)
# openai = 4
# "http://gpu-1:8000/v1" = 2

[ray]
num_cpus = 1               # CPUs per episode
max_retries = 3            # an episode whose worker was lost is played again (never counted twice)
sessions = "shared"        # "shared": workers write into --out; "stream": sessions are sent back

[ray.tags]                 # more resources for the episodes of a game or with a player
# stockfish = { num_cpus = 2 }
# "local:qwen2.5:7b@http://gpu-1:8000/v1" = { resources = { model_server = 0.25 } }
'''
