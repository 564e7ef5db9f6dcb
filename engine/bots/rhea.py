"""Rolling horizon evolution (RHEA) for single-player games, over nothing but the game contract.

As GVGAI's sample RHEA player plays: every move evolves a fresh population of plans (sequences of
``horizon`` actions) from the current state. A plan is valued by playing it out and scoring the state
it reaches with GVGAI's win-score heuristic (:func:`engine.bots.planning.win_score`). Each generation
keeps the best plan (elitism) and breeds the rest: two parents drawn by tournament, uniform crossover,
one gene mutated. When the budget is spent, the first action of the best plan is played.

One iteration of the budget is one plan evaluated (``horizon`` steps at most), so a fixed
``iterations`` gives a reproducible search.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.bots.planning import DEFAULT_TIME_S, Planner, PlanResult, Search, win_score
from engine.core import Game, Seat, State

__all__ = ["RheaBot"]


@dataclass
class _Plan:
    genes: list[int]
    value: float = float("-inf")


class RheaBot(Planner):
    """Rolling horizon evolution (player spec ``rhea``).

    Args:
        game: The game; it must have one seat.
        seed: Seeds the population, the breeding and sampled chance outcomes.
        time_s: Search time per move (ignored when ``iterations`` is given).
        iterations: Plans evaluated per move instead of a time budget (reproducible).
        population: Plans per generation (GVGAI's sample: 10).
        horizon: Actions per plan (GVGAI's sample: 10).
        mutation: Genes changed per offspring (GVGAI's sample: 1).
        tournament: Plans drawn for each parent pair (GVGAI's sample: 2).
        elitism: Best plans carried over unchanged (GVGAI's sample: 1).
    """

    spec = "rhea"
    label = "RHEA"

    def __init__(self, game: Game, seed: int | None = None, *, time_s: float = DEFAULT_TIME_S,
                 iterations: int | None = None, population: int = 10, horizon: int = 10,
                 mutation: int = 1, tournament: int = 2, elitism: int = 1) -> None:
        super().__init__(game, seed, time_s=time_s, iterations=iterations)
        if population < 2 or horizon < 1 or mutation < 0 or not 2 <= tournament <= population:
            raise ValueError("RHEA needs population >= 2, horizon >= 1, mutation >= 0 and "
                             "2 <= tournament <= population")
        if not 0 <= elitism < population:
            raise ValueError("elitism must be at least 0 and below the population")
        self.population = population
        self.horizon = horizon
        self.mutation = mutation
        self.tournament = tournament
        self.elitism = elitism

    def start(self, state: State, seat: Seat) -> Search:
        return _Evolution(self, state, seat)


class _Evolution(Search):
    def __init__(self, bot: RheaBot, state: State, seat: Seat) -> None:
        super().__init__(bot, state, seat)
        self.bot = bot
        #: The evaluated population, best first (complete after the first ``population`` iterations).
        self.pop: list[_Plan] = []
        #: The generation being bred.
        self.next: list[_Plan] = []
        self.generations = 0

    def _random_plan(self) -> _Plan:
        return _Plan([self.rng.randrange(len(self.actions)) for _ in range(self.bot.horizon)])

    def _evaluate(self, plan: _Plan) -> None:
        state = self.root
        for gene in plan.genes:
            if state.is_over:
                break
            state = self.step(state, self.legal(state, gene))
        plan.value = win_score(state, self.seat)

    def _offspring(self) -> _Plan:
        drawn = sorted(self.rng.sample(self.pop, self.bot.tournament), key=lambda p: -p.value)
        a, b = drawn[0], drawn[1]
        genes = [x if self.rng.random() >= 0.5 else y for x, y in zip(a.genes, b.genes, strict=True)]
        if len(self.actions) > 1:
            for _ in range(self.bot.mutation):
                genes[self.rng.randrange(len(genes))] = self.rng.randrange(len(self.actions))
        return _Plan(genes)

    def iterate(self) -> None:
        if len(self.pop) < self.bot.population:
            # The first generation: random plans.
            plan = self._random_plan()
            self._evaluate(plan)
            self.pop.append(plan)
            self.pop.sort(key=lambda p: -p.value)
            return
        if not self.next:
            self.next = [_Plan(list(p.genes), p.value) for p in self.pop[: self.bot.elitism]]
        child = self._offspring()
        self._evaluate(child)
        self.next.append(child)
        if len(self.next) == self.bot.population:
            self.pop = sorted(self.next, key=lambda p: -p.value)
            self.next = []
            self.generations += 1

    def result(self, iterations: int, elapsed_s: float) -> PlanResult:
        # The best plan evaluated so far, in the last full generation or the one being bred.
        best = max(self.pop + self.next, key=lambda p: p.value)
        state, line = self.root, []
        for gene in best.genes:
            if state.is_over:
                break
            action = self.legal(state, gene)
            line.append(action)
            state = self.step(state, action)
        first = line[0] if line else self.actions[0]
        values: dict[str, float] = {}
        for plan in self.pop + self.next:
            a = self.actions[plan.genes[0] % len(self.actions)]
            values[a] = max(values.get(a, float("-inf")), plan.value)
        why = (f"{first}: first action of the best plan (value {best.value:.4g}) after {iterations} plans "
               f"in {self.generations} generations; plan {' '.join(line[:6])}")
        return PlanResult(action=first, values=values, iterations=iterations, elapsed_s=elapsed_s,
                          line=tuple(line), why=why)
