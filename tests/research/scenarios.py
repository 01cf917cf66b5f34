"""Scenarios built in code for runs that must hit a budget: a planner and an evaluator that always
want more, an analyser that rates every page, a judge that never approves."""

from __future__ import annotations

from typing import Any

from outrider.server.research.modes import ModeBudget
from tests.research.conftest import page_titles

TOPICS = (
    "varroa", "queen", "drones", "honey", "beeswax", "propolis", "swarming", "hive", "pollination",
    "pesticides", "nosema", "foulbrood", "wintering", "urban", "native", "climate", "history",
    "pheromones", "dance", "workers", "anatomy", "statistics", "inspection", "harvest",
)  # fmt: skip


def queries(batch: int, count: int = 10) -> list[str]:
    return [f"{TOPICS[(batch * count + i) % len(TOPICS)]} bees {batch}" for i in range(count)]


def verdicts(web: str) -> list[dict[str, Any]]:
    return [
        {
            "url": f"{web}/{path}",
            "relevance": "high",
            "reliability": "medium",
            "summary": f"{title}.",
            "follow": [f"{web}/colony.html", f"{web}/varroa.html", f"{web}/index.html"],
        }
        for path, title in page_titles().items()
    ]


def turn(role: str, usage: int = 1000, **reply: Any) -> dict[str, Any]:
    tokens = {"input_tokens": usage, "output_tokens": usage // 10}
    return {"role": role, "reply": {"usage": tokens, **reply}}


def plan(usage: int = 1000) -> dict[str, Any]:
    data = {
        "objective": "Everything about honey bees.",
        "plan": "Search widely.",
        "questions": ["What is there to know about honey bees?"],
        "queries": queries(0),
    }
    return turn("planner", usage, data=data)


def evaluation(batch: int) -> dict[str, Any]:
    data = {
        "coverage": "Light",
        "should_continue": True,
        "gaps": "Much is missing.",
        "next_queries": queries(batch),
        "question_assessments": [
            {
                "question": "What is there to know about honey bees?",
                "status": "partial",
                "findings": "Some facts.",
            }
        ],
    }
    return turn("evaluator", data=data)


def outline(usage: int = 1000) -> dict[str, Any]:
    data = {"outline": "1. Bees", "direct_answer": "Bees.", "relevant_source_ids": ["S1"]}
    return turn("outliner", usage, data=data)


def endless(mode: ModeBudget, web: str) -> dict[str, Any]:
    """Turns for every call `mode` can make, each wanting more research."""
    turns = [plan()]
    if mode.analyse:
        for iteration in range(1, mode.iterations + 1):
            pages = {"pages": verdicts(web)}
            turns += [turn("analyser", data=pages), turn("analyser", data=pages)]
            turns.append(evaluation(iteration))
        turns.append(outline())
    for _ in range(mode.max_attempts):
        turns.append(turn("writer", text="Bees live in colonies [S1]. Varroa harms them [S2]."))
        if mode.judge:
            verdict = {"score": 4, "approved": False, "observation": "Thin.", "feedback": "More."}
            turns.append(turn("judge", data=verdict))
    return {"model": "scripted:endless", "turns": turns}
