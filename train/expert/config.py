"""Every setting of an expert-iteration run (``trappola.train.expert.iteration``).

``ExpertConfig`` adds to the shared settings (``trappola.train.run.config``)
the expert search, the targets and the loss of each round. A run's length
(``total_timesteps``) counts the decisions labelled by the search, so the
checkpoints' step counts are labels; ``deals_per_round`` deals are played
per round. The PPO and opponent-pool settings of the other trainers have
no meaning here and are refused with their reason (``NOT_CARRIED``).
"""

from __future__ import annotations

from typing import ClassVar

from trappola.train.run.config import AT_LEAST_1, NON_NEGATIVE, POSITIVE, RunConfig, redefine, setting

_PPO = "expert iteration fits search targets, not a clipped PPO objective"
_POOL = "the games are the network against itself; the search labels them"


class ExpertConfig(RunConfig):
    """The settings of an expert-iteration run: ``RunConfig``'s and the fields below."""

    TRAINER = "expert"
    NOT_CARRIED: ClassVar[dict[str, str]] = {
        "clip_range": _PPO,
        "gae_lambda": _PPO,
        "ent_coef": _PPO,
        "lr_final_fraction": _PPO,
        "gamma": "a partie is scored once, at its end",
        "pool_size": _POOL,
        "snapshot_every": _POOL,
        "snapshot_latest_prob": _POOL,
        "opponent_deterministic": _POOL,
        "alifer_value": "an Alifer is scored as the engine settles it",
        "alifer_ema": "an Alifer is scored as the engine settles it",
        "pool": _POOL,
        "bc": "the run starts from a trained checkpoint (init_from), not from cloning",
        "net_arch": "the network is the starting checkpoint's (init_from, or the shipped model)",
        "activation": "the network is the starting checkpoint's (init_from, or the shipped model)",
        "progress_bar": "a run prints a line per round",
        "bc_teacher": "the run starts from a trained checkpoint (init_from), not from cloning",
        "bc_deals": "the run starts from a trained checkpoint (init_from), not from cloning",
        "bc_workers": "the run starts from a trained checkpoint (init_from), not from cloning",
        "bc_epochs": "the run starts from a trained checkpoint (init_from), not from cloning",
        "bc_batch_size": "the run starts from a trained checkpoint (init_from), not from cloning",
        "bc_learning_rate": "the run starts from a trained checkpoint (init_from), not from cloning",
        "bc_value_coef": "the run starts from a trained checkpoint (init_from), not from cloning",
    }

    trainer: str = redefine(RunConfig, "trainer", "expert")
    run_name: str = redefine(RunConfig, "run_name", "expert_iteration")
    total_timesteps: int = redefine(
        RunConfig,
        "total_timesteps",
        200_000,
        help="Length of the run in decisions labelled by the search; a resumed run continues up to "
        "this total. The run ends after the round that reaches it.",
    )
    torch_threads: int = redefine(RunConfig, "torch_threads", 1)
    learning_rate: float = redefine(RunConfig, "learning_rate", 1e-4, help="Adam's learning rate in each round's fit.")
    batch_size: int = redefine(RunConfig, "batch_size", 512, help="Minibatch size of each round's fit.")
    n_epochs: int = redefine(RunConfig, "n_epochs", 2, help="Epochs over the replayed labels in each round.")
    vf_coef: float = redefine(RunConfig, "vf_coef", 0.5, help="Weight of the value head's squared error.")
    init_from: str = redefine(
        RunConfig,
        "init_from",
        "",
        help="Checkpoint whose weights the run starts from; empty = the shipped model (the MLP network only).",
    )
    eval_every: int = redefine(RunConfig, "eval_every", 0, help="Labels between evaluations; 0 = only at the end.")
    eval_deals: int = redefine(RunConfig, "eval_deals", 100, help="Duplicate deals of each evaluation; 0 = none.")
    eval_search_deals: int = redefine(RunConfig, "eval_search_deals", 0)
    eval_search_opponent: str = redefine(RunConfig, "eval_search_opponent", "pimc:samples=32")
    checkpoint_every: int = redefine(
        RunConfig, "checkpoint_every", 1, help="Labels between writes of last.zip (checked after each round)."
    )
    keep_checkpoints: bool = redefine(
        RunConfig, "keep_checkpoints", True, help="Keep each round's network as checkpoints/<labels>.zip."
    )
    # --- expert iteration --------------------------------------------------
    deals_per_round: int = setting(200, "Deals of the network against itself per round.", bounds=AT_LEAST_1)
    workers: int = setting(2, "Processes playing and labelling the games.", bounds=AT_LEAST_1)
    expert: str = setting(
        "pimc:samples=16,infer_draws=64",
        "The search labelling every decision; the run adds infer=<the round's network> when expert_infer.",
        player=True,
    )
    expert_infer: bool = setting(
        True, "Weight the search's layouts by the current network as the model of the opponent."
    )
    temperature: float = setting(
        0.1,
        "tau of the improved policy pi' ~ prior^prior_weight * exp(Q / tau), Q the search's values.",
        bounds=POSITIVE,
    )
    prior_weight: float = setting(
        1.0,
        "How much the network's prior guides the improved policy (0: the search's values alone).",
        bounds=NON_NEGATIVE,
    )
    kl_coef: float = setting(0.5, "Weight of KL(previous network || network) in the loss.", bounds=NON_NEGATIVE)
    rl_coef: float = setting(
        0.2, "Weight of the self-play policy-gradient loss on the network's own moves.", bounds=NON_NEGATIVE
    )
    replay_rounds: int = setting(2, "Rounds of labels each fit reads (the newest ones).", bounds=AT_LEAST_1)

    def check(self) -> None:
        """The shared checks; the expert is a ``pimc`` search, its opponent model named once."""
        super().check()
        if self.expert.split(":")[0] != "pimc":
            raise ValueError(f"expert must be a pimc search (its card values are the targets), got {self.expert!r}")
        if "infer=" in self.expert and self.expert_infer:
            raise ValueError("expert names infer= and expert_infer=true adds the network's; choose one")

    def players(self) -> dict[str, str]:
        """The evaluation opponents and the expert."""
        used = {"expert": self.expert}
        if self.evaluates:
            used["eval_opponent"] = self.eval_opponent
            if self.eval_search_deals:
                used["eval_search_opponent"] = self.eval_search_opponent
        return used
