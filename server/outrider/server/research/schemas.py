"""What each model role must answer, as pydantic models (their JSON Schemas go to the model)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from outrider.server.core.events.names import by_wire_value
from outrider.v1 import research_events_pb2 as re

LevelName = Literal["low", "medium", "high"]
LEVELS = by_wire_value(re.Level.DESCRIPTOR)  # "low" | "medium" | "high" -> re.Level


class PlanOut(BaseModel):
    objective: str
    plan: str
    questions: list[str] = Field(min_length=1)
    queries: list[str] = Field(min_length=1)
    complexity: Literal["simple", "moderate", "complex"] = "moderate"


class PageAnalysisOut(BaseModel):
    id: str = Field("", description="The page's id, e.g. S3.")
    url: str = Field("", description="The page's URL, when the id is not known.")
    relevance: LevelName
    reliability: LevelName
    summary: str
    follow: list[str] = Field(
        default_factory=list, description="Links on this page worth reading next (their URLs)."
    )


class AnalysisOut(BaseModel):
    pages: list[PageAnalysisOut]


class AssessmentOut(BaseModel):
    question: str
    status: Literal["answered", "partial", "unanswered"]
    findings: str


class EvaluationOut(BaseModel):
    question_assessments: list[AssessmentOut]
    coverage: Literal["Light", "Moderate", "Solid", "Comprehensive"]
    should_continue: bool
    next_queries: list[str] = Field(default_factory=list)
    gaps: str = ""
    new_questions: list[str] = Field(default_factory=list)


class OutlineOut(BaseModel):
    outline: str
    direct_answer: str
    key_takeaways: list[str] = Field(default_factory=list)
    relevant_source_ids: list[str] = Field(default_factory=list)


class JudgmentOut(BaseModel):
    score: float = Field(ge=0, le=10)
    approved: bool
    observation: str
    feedback: str = ""
