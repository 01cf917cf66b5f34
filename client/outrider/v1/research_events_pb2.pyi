from outrider.v1 import options_pb2 as _options_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ResearchMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RESEARCH_MODE_UNSPECIFIED: _ClassVar[ResearchMode]
    RESEARCH_MODE_FAST: _ClassVar[ResearchMode]
    RESEARCH_MODE_BALANCED: _ClassVar[ResearchMode]
    RESEARCH_MODE_DEEP: _ClassVar[ResearchMode]
    RESEARCH_MODE_MAX: _ClassVar[ResearchMode]
    RESEARCH_MODE_ULTRA: _ClassVar[ResearchMode]

class Level(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LEVEL_UNSPECIFIED: _ClassVar[Level]
    LEVEL_LOW: _ClassVar[Level]
    LEVEL_MEDIUM: _ClassVar[Level]
    LEVEL_HIGH: _ClassVar[Level]

class UrlSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    URL_SOURCE_UNSPECIFIED: _ClassVar[UrlSource]
    URL_SOURCE_USER_INPUT: _ClassVar[UrlSource]
    URL_SOURCE_SEARCH_RESULT: _ClassVar[UrlSource]
    URL_SOURCE_EXTRACTED_LINK: _ClassVar[UrlSource]

class QuestionStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    QUESTION_STATUS_UNSPECIFIED: _ClassVar[QuestionStatus]
    QUESTION_STATUS_ANSWERED: _ClassVar[QuestionStatus]
    QUESTION_STATUS_PARTIAL: _ClassVar[QuestionStatus]
    QUESTION_STATUS_UNANSWERED: _ClassVar[QuestionStatus]

class ResearchCoverage(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RESEARCH_COVERAGE_UNSPECIFIED: _ClassVar[ResearchCoverage]
    RESEARCH_COVERAGE_LIGHT: _ClassVar[ResearchCoverage]
    RESEARCH_COVERAGE_MODERATE: _ClassVar[ResearchCoverage]
    RESEARCH_COVERAGE_SOLID: _ClassVar[ResearchCoverage]
    RESEARCH_COVERAGE_COMPREHENSIVE: _ClassVar[ResearchCoverage]

class QueryComplexity(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    QUERY_COMPLEXITY_UNSPECIFIED: _ClassVar[QueryComplexity]
    QUERY_COMPLEXITY_SIMPLE: _ClassVar[QueryComplexity]
    QUERY_COMPLEXITY_MODERATE: _ClassVar[QueryComplexity]
    QUERY_COMPLEXITY_COMPLEX: _ClassVar[QueryComplexity]

class ResearchActivity(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RESEARCH_ACTIVITY_UNSPECIFIED: _ClassVar[ResearchActivity]
    RESEARCH_ACTIVITY_PREFETCHING: _ClassVar[ResearchActivity]
    RESEARCH_ACTIVITY_PLANNING: _ClassVar[ResearchActivity]
    RESEARCH_ACTIVITY_ITERATION: _ClassVar[ResearchActivity]
    RESEARCH_ACTIVITY_SEARCHING: _ClassVar[ResearchActivity]
    RESEARCH_ACTIVITY_ANALYZING: _ClassVar[ResearchActivity]
    RESEARCH_ACTIVITY_FOLLOWING: _ClassVar[ResearchActivity]
    RESEARCH_ACTIVITY_EVALUATING: _ClassVar[ResearchActivity]
    RESEARCH_ACTIVITY_OUTLINING: _ClassVar[ResearchActivity]
    RESEARCH_ACTIVITY_WRITING: _ClassVar[ResearchActivity]
    RESEARCH_ACTIVITY_JUDGING: _ClassVar[ResearchActivity]

class StopReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STOP_REASON_UNSPECIFIED: _ClassVar[StopReason]
    STOP_REASON_MAX_ITERATIONS: _ClassVar[StopReason]
    STOP_REASON_COVERAGE_SUFFICIENT: _ClassVar[StopReason]
RESEARCH_MODE_UNSPECIFIED: ResearchMode
RESEARCH_MODE_FAST: ResearchMode
RESEARCH_MODE_BALANCED: ResearchMode
RESEARCH_MODE_DEEP: ResearchMode
RESEARCH_MODE_MAX: ResearchMode
RESEARCH_MODE_ULTRA: ResearchMode
LEVEL_UNSPECIFIED: Level
LEVEL_LOW: Level
LEVEL_MEDIUM: Level
LEVEL_HIGH: Level
URL_SOURCE_UNSPECIFIED: UrlSource
URL_SOURCE_USER_INPUT: UrlSource
URL_SOURCE_SEARCH_RESULT: UrlSource
URL_SOURCE_EXTRACTED_LINK: UrlSource
QUESTION_STATUS_UNSPECIFIED: QuestionStatus
QUESTION_STATUS_ANSWERED: QuestionStatus
QUESTION_STATUS_PARTIAL: QuestionStatus
QUESTION_STATUS_UNANSWERED: QuestionStatus
RESEARCH_COVERAGE_UNSPECIFIED: ResearchCoverage
RESEARCH_COVERAGE_LIGHT: ResearchCoverage
RESEARCH_COVERAGE_MODERATE: ResearchCoverage
RESEARCH_COVERAGE_SOLID: ResearchCoverage
RESEARCH_COVERAGE_COMPREHENSIVE: ResearchCoverage
QUERY_COMPLEXITY_UNSPECIFIED: QueryComplexity
QUERY_COMPLEXITY_SIMPLE: QueryComplexity
QUERY_COMPLEXITY_MODERATE: QueryComplexity
QUERY_COMPLEXITY_COMPLEX: QueryComplexity
RESEARCH_ACTIVITY_UNSPECIFIED: ResearchActivity
RESEARCH_ACTIVITY_PREFETCHING: ResearchActivity
RESEARCH_ACTIVITY_PLANNING: ResearchActivity
RESEARCH_ACTIVITY_ITERATION: ResearchActivity
RESEARCH_ACTIVITY_SEARCHING: ResearchActivity
RESEARCH_ACTIVITY_ANALYZING: ResearchActivity
RESEARCH_ACTIVITY_FOLLOWING: ResearchActivity
RESEARCH_ACTIVITY_EVALUATING: ResearchActivity
RESEARCH_ACTIVITY_OUTLINING: ResearchActivity
RESEARCH_ACTIVITY_WRITING: ResearchActivity
RESEARCH_ACTIVITY_JUDGING: ResearchActivity
STOP_REASON_UNSPECIFIED: StopReason
STOP_REASON_MAX_ITERATIONS: StopReason
STOP_REASON_COVERAGE_SUFFICIENT: StopReason

class ResearchEvent(_message.Message):
    __slots__ = ("analyzing_end", "analyzing_start", "complete", "error", "evaluating_end", "evaluating_start", "following_end", "following_start", "iteration_end", "iteration_start", "judging_end", "judging_start", "outlining_end", "outlining_start", "planning_end", "planning_start", "prefetching_end", "prefetching_start", "searching_end", "searching_start", "start", "writing_end", "writing_start")
    ANALYZING_END_FIELD_NUMBER: _ClassVar[int]
    ANALYZING_START_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    EVALUATING_END_FIELD_NUMBER: _ClassVar[int]
    EVALUATING_START_FIELD_NUMBER: _ClassVar[int]
    FOLLOWING_END_FIELD_NUMBER: _ClassVar[int]
    FOLLOWING_START_FIELD_NUMBER: _ClassVar[int]
    ITERATION_END_FIELD_NUMBER: _ClassVar[int]
    ITERATION_START_FIELD_NUMBER: _ClassVar[int]
    JUDGING_END_FIELD_NUMBER: _ClassVar[int]
    JUDGING_START_FIELD_NUMBER: _ClassVar[int]
    OUTLINING_END_FIELD_NUMBER: _ClassVar[int]
    OUTLINING_START_FIELD_NUMBER: _ClassVar[int]
    PLANNING_END_FIELD_NUMBER: _ClassVar[int]
    PLANNING_START_FIELD_NUMBER: _ClassVar[int]
    PREFETCHING_END_FIELD_NUMBER: _ClassVar[int]
    PREFETCHING_START_FIELD_NUMBER: _ClassVar[int]
    SEARCHING_END_FIELD_NUMBER: _ClassVar[int]
    SEARCHING_START_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    WRITING_END_FIELD_NUMBER: _ClassVar[int]
    WRITING_START_FIELD_NUMBER: _ClassVar[int]
    analyzing_end: AnalyzingEnd
    analyzing_start: AnalyzingStart
    complete: ResearchComplete
    error: ResearchError
    evaluating_end: EvaluatingEnd
    evaluating_start: EvaluatingStart
    following_end: FollowingEnd
    following_start: FollowingStart
    iteration_end: IterationEnd
    iteration_start: IterationStart
    judging_end: JudgingEnd
    judging_start: JudgingStart
    outlining_end: OutliningEnd
    outlining_start: OutliningStart
    planning_end: PlanningEnd
    planning_start: PlanningStart
    prefetching_end: PrefetchingEnd
    prefetching_start: PrefetchingStart
    searching_end: SearchingEnd
    searching_start: SearchingStart
    start: ResearchStart
    writing_end: WritingEnd
    writing_start: WritingStart
    def __init__(self, analyzing_end: _Optional[_Union[AnalyzingEnd, _Mapping]] = ..., analyzing_start: _Optional[_Union[AnalyzingStart, _Mapping]] = ..., complete: _Optional[_Union[ResearchComplete, _Mapping]] = ..., error: _Optional[_Union[ResearchError, _Mapping]] = ..., evaluating_end: _Optional[_Union[EvaluatingEnd, _Mapping]] = ..., evaluating_start: _Optional[_Union[EvaluatingStart, _Mapping]] = ..., following_end: _Optional[_Union[FollowingEnd, _Mapping]] = ..., following_start: _Optional[_Union[FollowingStart, _Mapping]] = ..., iteration_end: _Optional[_Union[IterationEnd, _Mapping]] = ..., iteration_start: _Optional[_Union[IterationStart, _Mapping]] = ..., judging_end: _Optional[_Union[JudgingEnd, _Mapping]] = ..., judging_start: _Optional[_Union[JudgingStart, _Mapping]] = ..., outlining_end: _Optional[_Union[OutliningEnd, _Mapping]] = ..., outlining_start: _Optional[_Union[OutliningStart, _Mapping]] = ..., planning_end: _Optional[_Union[PlanningEnd, _Mapping]] = ..., planning_start: _Optional[_Union[PlanningStart, _Mapping]] = ..., prefetching_end: _Optional[_Union[PrefetchingEnd, _Mapping]] = ..., prefetching_start: _Optional[_Union[PrefetchingStart, _Mapping]] = ..., searching_end: _Optional[_Union[SearchingEnd, _Mapping]] = ..., searching_start: _Optional[_Union[SearchingStart, _Mapping]] = ..., start: _Optional[_Union[ResearchStart, _Mapping]] = ..., writing_end: _Optional[_Union[WritingEnd, _Mapping]] = ..., writing_start: _Optional[_Union[WritingStart, _Mapping]] = ...) -> None: ...

class PageSample(_message.Message):
    __slots__ = ("domain", "title", "url", "url_source", "relevance", "reliability", "summary")
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    URL_SOURCE_FIELD_NUMBER: _ClassVar[int]
    RELEVANCE_FIELD_NUMBER: _ClassVar[int]
    RELIABILITY_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    domain: str
    title: str
    url: str
    url_source: UrlSource
    relevance: Level
    reliability: Level
    summary: str
    def __init__(self, domain: _Optional[str] = ..., title: _Optional[str] = ..., url: _Optional[str] = ..., url_source: _Optional[_Union[UrlSource, str]] = ..., relevance: _Optional[_Union[Level, str]] = ..., reliability: _Optional[_Union[Level, str]] = ..., summary: _Optional[str] = ...) -> None: ...

class QuestionAssessment(_message.Message):
    __slots__ = ("findings", "question", "status")
    FINDINGS_FIELD_NUMBER: _ClassVar[int]
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    findings: str
    question: str
    status: QuestionStatus
    def __init__(self, findings: _Optional[str] = ..., question: _Optional[str] = ..., status: _Optional[_Union[QuestionStatus, str]] = ...) -> None: ...

class AnalyzingEnd(_message.Message):
    __slots__ = ("analyzed", "failed", "iteration", "message", "samples", "timestamp")
    ANALYZED_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    ITERATION_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    SAMPLES_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    analyzed: int
    failed: int
    iteration: int
    message: str
    samples: _containers.RepeatedCompositeFieldContainer[PageSample]
    timestamp: float
    def __init__(self, analyzed: _Optional[int] = ..., failed: _Optional[int] = ..., iteration: _Optional[int] = ..., message: _Optional[str] = ..., samples: _Optional[_Iterable[_Union[PageSample, _Mapping]]] = ..., timestamp: _Optional[float] = ...) -> None: ...

class AnalyzingStart(_message.Message):
    __slots__ = ("iteration", "message", "page_count", "timestamp")
    ITERATION_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_COUNT_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    iteration: int
    message: str
    page_count: int
    timestamp: float
    def __init__(self, iteration: _Optional[int] = ..., message: _Optional[str] = ..., page_count: _Optional[int] = ..., timestamp: _Optional[float] = ...) -> None: ...

class ResearchComplete(_message.Message):
    __slots__ = ("message", "metadata", "report", "timestamp")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    REPORT_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    message: str
    metadata: ResearchMetadata
    report: str
    timestamp: float
    def __init__(self, message: _Optional[str] = ..., metadata: _Optional[_Union[ResearchMetadata, _Mapping]] = ..., report: _Optional[str] = ..., timestamp: _Optional[float] = ...) -> None: ...

class ResearchMetadata(_message.Message):
    __slots__ = ("executed_queries", "mode", "prompt", "query_complexity", "research_objective", "research_plan", "research_questions", "total_pages_analyzed", "cited_pages", "gap_evaluations", "judgments", "metrics", "outline", "url_sources", "grounding_supports", "removed_citations", "removed_statements")
    EXECUTED_QUERIES_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    QUERY_COMPLEXITY_FIELD_NUMBER: _ClassVar[int]
    RESEARCH_OBJECTIVE_FIELD_NUMBER: _ClassVar[int]
    RESEARCH_PLAN_FIELD_NUMBER: _ClassVar[int]
    RESEARCH_QUESTIONS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_PAGES_ANALYZED_FIELD_NUMBER: _ClassVar[int]
    CITED_PAGES_FIELD_NUMBER: _ClassVar[int]
    GAP_EVALUATIONS_FIELD_NUMBER: _ClassVar[int]
    JUDGMENTS_FIELD_NUMBER: _ClassVar[int]
    METRICS_FIELD_NUMBER: _ClassVar[int]
    OUTLINE_FIELD_NUMBER: _ClassVar[int]
    URL_SOURCES_FIELD_NUMBER: _ClassVar[int]
    GROUNDING_SUPPORTS_FIELD_NUMBER: _ClassVar[int]
    REMOVED_CITATIONS_FIELD_NUMBER: _ClassVar[int]
    REMOVED_STATEMENTS_FIELD_NUMBER: _ClassVar[int]
    executed_queries: _containers.RepeatedCompositeFieldContainer[QueryBatch]
    mode: ResearchMode
    prompt: str
    query_complexity: QueryComplexity
    research_objective: str
    research_plan: str
    research_questions: _containers.RepeatedScalarFieldContainer[str]
    total_pages_analyzed: int
    cited_pages: _containers.RepeatedCompositeFieldContainer[CitedPage]
    gap_evaluations: _containers.RepeatedCompositeFieldContainer[GapEvaluation]
    judgments: _containers.RepeatedCompositeFieldContainer[Judgment]
    metrics: ResearchMetrics
    outline: ReportOutline
    url_sources: UrlSourceCounts
    grounding_supports: _containers.RepeatedCompositeFieldContainer[GroundingSupport]
    removed_citations: _containers.RepeatedScalarFieldContainer[str]
    removed_statements: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, executed_queries: _Optional[_Iterable[_Union[QueryBatch, _Mapping]]] = ..., mode: _Optional[_Union[ResearchMode, str]] = ..., prompt: _Optional[str] = ..., query_complexity: _Optional[_Union[QueryComplexity, str]] = ..., research_objective: _Optional[str] = ..., research_plan: _Optional[str] = ..., research_questions: _Optional[_Iterable[str]] = ..., total_pages_analyzed: _Optional[int] = ..., cited_pages: _Optional[_Iterable[_Union[CitedPage, _Mapping]]] = ..., gap_evaluations: _Optional[_Iterable[_Union[GapEvaluation, _Mapping]]] = ..., judgments: _Optional[_Iterable[_Union[Judgment, _Mapping]]] = ..., metrics: _Optional[_Union[ResearchMetrics, _Mapping]] = ..., outline: _Optional[_Union[ReportOutline, _Mapping]] = ..., url_sources: _Optional[_Union[UrlSourceCounts, _Mapping]] = ..., grounding_supports: _Optional[_Iterable[_Union[GroundingSupport, _Mapping]]] = ..., removed_citations: _Optional[_Iterable[str]] = ..., removed_statements: _Optional[_Iterable[str]] = ...) -> None: ...

class GroundingSupport(_message.Message):
    __slots__ = ("start_index", "end_index", "text", "cited_page_indices")
    START_INDEX_FIELD_NUMBER: _ClassVar[int]
    END_INDEX_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    CITED_PAGE_INDICES_FIELD_NUMBER: _ClassVar[int]
    start_index: int
    end_index: int
    text: str
    cited_page_indices: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, start_index: _Optional[int] = ..., end_index: _Optional[int] = ..., text: _Optional[str] = ..., cited_page_indices: _Optional[_Iterable[int]] = ...) -> None: ...

class QueryBatch(_message.Message):
    __slots__ = ("queries",)
    QUERIES_FIELD_NUMBER: _ClassVar[int]
    queries: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, queries: _Optional[_Iterable[str]] = ...) -> None: ...

class CitedPage(_message.Message):
    __slots__ = ("id", "claims", "source_queries", "url", "depth", "full_text", "parent_url", "relevance", "reliability", "summary", "title", "url_source")
    ID_FIELD_NUMBER: _ClassVar[int]
    CLAIMS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_QUERIES_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    FULL_TEXT_FIELD_NUMBER: _ClassVar[int]
    PARENT_URL_FIELD_NUMBER: _ClassVar[int]
    RELEVANCE_FIELD_NUMBER: _ClassVar[int]
    RELIABILITY_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    URL_SOURCE_FIELD_NUMBER: _ClassVar[int]
    id: str
    claims: _containers.RepeatedScalarFieldContainer[str]
    source_queries: _containers.RepeatedScalarFieldContainer[str]
    url: str
    depth: int
    full_text: str
    parent_url: str
    relevance: Level
    reliability: Level
    summary: str
    title: str
    url_source: UrlSource
    def __init__(self, id: _Optional[str] = ..., claims: _Optional[_Iterable[str]] = ..., source_queries: _Optional[_Iterable[str]] = ..., url: _Optional[str] = ..., depth: _Optional[int] = ..., full_text: _Optional[str] = ..., parent_url: _Optional[str] = ..., relevance: _Optional[_Union[Level, str]] = ..., reliability: _Optional[_Union[Level, str]] = ..., summary: _Optional[str] = ..., title: _Optional[str] = ..., url_source: _Optional[_Union[UrlSource, str]] = ...) -> None: ...

class GapEvaluation(_message.Message):
    __slots__ = ("gap_description", "question_assessments", "research_coverage", "should_continue_research", "new_research_questions", "search_queries")
    GAP_DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    QUESTION_ASSESSMENTS_FIELD_NUMBER: _ClassVar[int]
    RESEARCH_COVERAGE_FIELD_NUMBER: _ClassVar[int]
    SHOULD_CONTINUE_RESEARCH_FIELD_NUMBER: _ClassVar[int]
    NEW_RESEARCH_QUESTIONS_FIELD_NUMBER: _ClassVar[int]
    SEARCH_QUERIES_FIELD_NUMBER: _ClassVar[int]
    gap_description: str
    question_assessments: _containers.RepeatedCompositeFieldContainer[QuestionAssessment]
    research_coverage: ResearchCoverage
    should_continue_research: bool
    new_research_questions: _containers.RepeatedScalarFieldContainer[str]
    search_queries: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, gap_description: _Optional[str] = ..., question_assessments: _Optional[_Iterable[_Union[QuestionAssessment, _Mapping]]] = ..., research_coverage: _Optional[_Union[ResearchCoverage, str]] = ..., should_continue_research: _Optional[bool] = ..., new_research_questions: _Optional[_Iterable[str]] = ..., search_queries: _Optional[_Iterable[str]] = ...) -> None: ...

class Judgment(_message.Message):
    __slots__ = ("approved", "observation", "score", "feedback")
    APPROVED_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    FEEDBACK_FIELD_NUMBER: _ClassVar[int]
    approved: bool
    observation: str
    score: float
    feedback: str
    def __init__(self, approved: _Optional[bool] = ..., observation: _Optional[str] = ..., score: _Optional[float] = ..., feedback: _Optional[str] = ...) -> None: ...

class ResearchMetrics(_message.Message):
    __slots__ = ("cached_fetches", "cached_searches", "fetches", "iterations", "phases", "robots_blocked", "searches", "success_rates", "tokens", "total_duration")
    class CachedSearchesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class PhasesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: PhaseTiming
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[PhaseTiming, _Mapping]] = ...) -> None: ...
    class SearchesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class TokensEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: TokenUsage
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[TokenUsage, _Mapping]] = ...) -> None: ...
    CACHED_FETCHES_FIELD_NUMBER: _ClassVar[int]
    CACHED_SEARCHES_FIELD_NUMBER: _ClassVar[int]
    FETCHES_FIELD_NUMBER: _ClassVar[int]
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    PHASES_FIELD_NUMBER: _ClassVar[int]
    ROBOTS_BLOCKED_FIELD_NUMBER: _ClassVar[int]
    SEARCHES_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_RATES_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_DURATION_FIELD_NUMBER: _ClassVar[int]
    cached_fetches: int
    cached_searches: _containers.ScalarMap[str, int]
    fetches: int
    iterations: int
    phases: _containers.MessageMap[str, PhaseTiming]
    robots_blocked: int
    searches: _containers.ScalarMap[str, int]
    success_rates: SuccessRates
    tokens: _containers.MessageMap[str, TokenUsage]
    total_duration: float
    def __init__(self, cached_fetches: _Optional[int] = ..., cached_searches: _Optional[_Mapping[str, int]] = ..., fetches: _Optional[int] = ..., iterations: _Optional[int] = ..., phases: _Optional[_Mapping[str, PhaseTiming]] = ..., robots_blocked: _Optional[int] = ..., searches: _Optional[_Mapping[str, int]] = ..., success_rates: _Optional[_Union[SuccessRates, _Mapping]] = ..., tokens: _Optional[_Mapping[str, TokenUsage]] = ..., total_duration: _Optional[float] = ...) -> None: ...

class PhaseTiming(_message.Message):
    __slots__ = ("duration",)
    DURATION_FIELD_NUMBER: _ClassVar[int]
    duration: float
    def __init__(self, duration: _Optional[float] = ...) -> None: ...

class SuccessRates(_message.Message):
    __slots__ = ("analyzes", "fetches", "searches")
    ANALYZES_FIELD_NUMBER: _ClassVar[int]
    FETCHES_FIELD_NUMBER: _ClassVar[int]
    SEARCHES_FIELD_NUMBER: _ClassVar[int]
    analyzes: float
    fetches: float
    searches: float
    def __init__(self, analyzes: _Optional[float] = ..., fetches: _Optional[float] = ..., searches: _Optional[float] = ...) -> None: ...

class TokenUsage(_message.Message):
    __slots__ = ("input", "output", "estimated_cost_usd")
    INPUT_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    ESTIMATED_COST_USD_FIELD_NUMBER: _ClassVar[int]
    input: int
    output: int
    estimated_cost_usd: float
    def __init__(self, input: _Optional[int] = ..., output: _Optional[int] = ..., estimated_cost_usd: _Optional[float] = ...) -> None: ...

class ReportOutline(_message.Message):
    __slots__ = ("direct_answer", "key_takeaways", "outline", "relevant_source_ids")
    DIRECT_ANSWER_FIELD_NUMBER: _ClassVar[int]
    KEY_TAKEAWAYS_FIELD_NUMBER: _ClassVar[int]
    OUTLINE_FIELD_NUMBER: _ClassVar[int]
    RELEVANT_SOURCE_IDS_FIELD_NUMBER: _ClassVar[int]
    direct_answer: str
    key_takeaways: _containers.RepeatedScalarFieldContainer[str]
    outline: str
    relevant_source_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, direct_answer: _Optional[str] = ..., key_takeaways: _Optional[_Iterable[str]] = ..., outline: _Optional[str] = ..., relevant_source_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class UrlSourceCounts(_message.Message):
    __slots__ = ("search_results", "user_provided", "extracted_links")
    SEARCH_RESULTS_FIELD_NUMBER: _ClassVar[int]
    USER_PROVIDED_FIELD_NUMBER: _ClassVar[int]
    EXTRACTED_LINKS_FIELD_NUMBER: _ClassVar[int]
    search_results: int
    user_provided: int
    extracted_links: int
    def __init__(self, search_results: _Optional[int] = ..., user_provided: _Optional[int] = ..., extracted_links: _Optional[int] = ...) -> None: ...

class ResearchError(_message.Message):
    __slots__ = ("error", "message", "timestamp", "activity", "iteration")
    ERROR_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_FIELD_NUMBER: _ClassVar[int]
    ITERATION_FIELD_NUMBER: _ClassVar[int]
    error: ResearchErrorDetail
    message: str
    timestamp: float
    activity: ResearchActivity
    iteration: int
    def __init__(self, error: _Optional[_Union[ResearchErrorDetail, _Mapping]] = ..., message: _Optional[str] = ..., timestamp: _Optional[float] = ..., activity: _Optional[_Union[ResearchActivity, str]] = ..., iteration: _Optional[int] = ...) -> None: ...

class ResearchErrorDetail(_message.Message):
    __slots__ = ("message", "name", "stack")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    message: str
    name: str
    stack: str
    def __init__(self, message: _Optional[str] = ..., name: _Optional[str] = ..., stack: _Optional[str] = ...) -> None: ...

class EvaluatingEnd(_message.Message):
    __slots__ = ("coverage", "gaps", "iteration", "message", "next_queries", "question_assessments", "should_continue", "timestamp")
    COVERAGE_FIELD_NUMBER: _ClassVar[int]
    GAPS_FIELD_NUMBER: _ClassVar[int]
    ITERATION_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    NEXT_QUERIES_FIELD_NUMBER: _ClassVar[int]
    QUESTION_ASSESSMENTS_FIELD_NUMBER: _ClassVar[int]
    SHOULD_CONTINUE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    coverage: ResearchCoverage
    gaps: str
    iteration: int
    message: str
    next_queries: _containers.RepeatedScalarFieldContainer[str]
    question_assessments: _containers.RepeatedCompositeFieldContainer[QuestionAssessment]
    should_continue: bool
    timestamp: float
    def __init__(self, coverage: _Optional[_Union[ResearchCoverage, str]] = ..., gaps: _Optional[str] = ..., iteration: _Optional[int] = ..., message: _Optional[str] = ..., next_queries: _Optional[_Iterable[str]] = ..., question_assessments: _Optional[_Iterable[_Union[QuestionAssessment, _Mapping]]] = ..., should_continue: _Optional[bool] = ..., timestamp: _Optional[float] = ...) -> None: ...

class EvaluatingStart(_message.Message):
    __slots__ = ("iteration", "message", "pages_analyzed", "question_count", "timestamp")
    ITERATION_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    PAGES_ANALYZED_FIELD_NUMBER: _ClassVar[int]
    QUESTION_COUNT_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    iteration: int
    message: str
    pages_analyzed: int
    question_count: int
    timestamp: float
    def __init__(self, iteration: _Optional[int] = ..., message: _Optional[str] = ..., pages_analyzed: _Optional[int] = ..., question_count: _Optional[int] = ..., timestamp: _Optional[float] = ...) -> None: ...

class FollowingEnd(_message.Message):
    __slots__ = ("failed", "followed", "iteration", "message", "samples", "timestamp")
    FAILED_FIELD_NUMBER: _ClassVar[int]
    FOLLOWED_FIELD_NUMBER: _ClassVar[int]
    ITERATION_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    SAMPLES_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    failed: int
    followed: int
    iteration: int
    message: str
    samples: _containers.RepeatedCompositeFieldContainer[PageSample]
    timestamp: float
    def __init__(self, failed: _Optional[int] = ..., followed: _Optional[int] = ..., iteration: _Optional[int] = ..., message: _Optional[str] = ..., samples: _Optional[_Iterable[_Union[PageSample, _Mapping]]] = ..., timestamp: _Optional[float] = ...) -> None: ...

class FollowingStart(_message.Message):
    __slots__ = ("iteration", "link_count", "message", "timestamp")
    ITERATION_FIELD_NUMBER: _ClassVar[int]
    LINK_COUNT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    iteration: int
    link_count: int
    message: str
    timestamp: float
    def __init__(self, iteration: _Optional[int] = ..., link_count: _Optional[int] = ..., message: _Optional[str] = ..., timestamp: _Optional[float] = ...) -> None: ...

class IterationEnd(_message.Message):
    __slots__ = ("is_last", "iteration", "message", "timestamp", "stop_reason")
    IS_LAST_FIELD_NUMBER: _ClassVar[int]
    ITERATION_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    STOP_REASON_FIELD_NUMBER: _ClassVar[int]
    is_last: bool
    iteration: int
    message: str
    timestamp: float
    stop_reason: StopReason
    def __init__(self, is_last: _Optional[bool] = ..., iteration: _Optional[int] = ..., message: _Optional[str] = ..., timestamp: _Optional[float] = ..., stop_reason: _Optional[_Union[StopReason, str]] = ...) -> None: ...

class IterationStart(_message.Message):
    __slots__ = ("iteration", "max_iterations", "message", "queries", "timestamp")
    ITERATION_FIELD_NUMBER: _ClassVar[int]
    MAX_ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    QUERIES_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    iteration: int
    max_iterations: int
    message: str
    queries: _containers.RepeatedScalarFieldContainer[str]
    timestamp: float
    def __init__(self, iteration: _Optional[int] = ..., max_iterations: _Optional[int] = ..., message: _Optional[str] = ..., queries: _Optional[_Iterable[str]] = ..., timestamp: _Optional[float] = ...) -> None: ...

class JudgingEnd(_message.Message):
    __slots__ = ("approved", "attempt", "message", "score", "timestamp", "feedback")
    APPROVED_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    FEEDBACK_FIELD_NUMBER: _ClassVar[int]
    approved: bool
    attempt: int
    message: str
    score: float
    timestamp: float
    feedback: str
    def __init__(self, approved: _Optional[bool] = ..., attempt: _Optional[int] = ..., message: _Optional[str] = ..., score: _Optional[float] = ..., timestamp: _Optional[float] = ..., feedback: _Optional[str] = ...) -> None: ...

class JudgingStart(_message.Message):
    __slots__ = ("attempt", "max_attempts", "message", "timestamp")
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    MAX_ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    attempt: int
    max_attempts: int
    message: str
    timestamp: float
    def __init__(self, attempt: _Optional[int] = ..., max_attempts: _Optional[int] = ..., message: _Optional[str] = ..., timestamp: _Optional[float] = ...) -> None: ...

class OutliningEnd(_message.Message):
    __slots__ = ("message", "sources_selected", "timestamp")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    SOURCES_SELECTED_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    message: str
    sources_selected: int
    timestamp: float
    def __init__(self, message: _Optional[str] = ..., sources_selected: _Optional[int] = ..., timestamp: _Optional[float] = ...) -> None: ...

class OutliningStart(_message.Message):
    __slots__ = ("message", "pages_analyzed", "quality_page_count", "timestamp")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    PAGES_ANALYZED_FIELD_NUMBER: _ClassVar[int]
    QUALITY_PAGE_COUNT_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    message: str
    pages_analyzed: int
    quality_page_count: int
    timestamp: float
    def __init__(self, message: _Optional[str] = ..., pages_analyzed: _Optional[int] = ..., quality_page_count: _Optional[int] = ..., timestamp: _Optional[float] = ...) -> None: ...

class PlanningEnd(_message.Message):
    __slots__ = ("complexity", "message", "objective", "plan", "queries", "questions", "timestamp")
    COMPLEXITY_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    OBJECTIVE_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    QUERIES_FIELD_NUMBER: _ClassVar[int]
    QUESTIONS_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    complexity: QueryComplexity
    message: str
    objective: str
    plan: str
    queries: _containers.RepeatedScalarFieldContainer[str]
    questions: _containers.RepeatedScalarFieldContainer[str]
    timestamp: float
    def __init__(self, complexity: _Optional[_Union[QueryComplexity, str]] = ..., message: _Optional[str] = ..., objective: _Optional[str] = ..., plan: _Optional[str] = ..., queries: _Optional[_Iterable[str]] = ..., questions: _Optional[_Iterable[str]] = ..., timestamp: _Optional[float] = ...) -> None: ...

class PlanningStart(_message.Message):
    __slots__ = ("has_prefetched_context", "message", "timestamp")
    HAS_PREFETCHED_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    has_prefetched_context: bool
    message: str
    timestamp: float
    def __init__(self, has_prefetched_context: _Optional[bool] = ..., message: _Optional[str] = ..., timestamp: _Optional[float] = ...) -> None: ...

class PrefetchingEnd(_message.Message):
    __slots__ = ("failed", "fetched", "message", "timestamp")
    FAILED_FIELD_NUMBER: _ClassVar[int]
    FETCHED_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    failed: int
    fetched: int
    message: str
    timestamp: float
    def __init__(self, failed: _Optional[int] = ..., fetched: _Optional[int] = ..., message: _Optional[str] = ..., timestamp: _Optional[float] = ...) -> None: ...

class PrefetchingStart(_message.Message):
    __slots__ = ("message", "timestamp", "url_count", "urls")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    URL_COUNT_FIELD_NUMBER: _ClassVar[int]
    URLS_FIELD_NUMBER: _ClassVar[int]
    message: str
    timestamp: float
    url_count: int
    urls: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, message: _Optional[str] = ..., timestamp: _Optional[float] = ..., url_count: _Optional[int] = ..., urls: _Optional[_Iterable[str]] = ...) -> None: ...

class SearchingEnd(_message.Message):
    __slots__ = ("iteration", "message", "timestamp", "urls_found", "urls_new")
    ITERATION_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    URLS_FOUND_FIELD_NUMBER: _ClassVar[int]
    URLS_NEW_FIELD_NUMBER: _ClassVar[int]
    iteration: int
    message: str
    timestamp: float
    urls_found: int
    urls_new: int
    def __init__(self, iteration: _Optional[int] = ..., message: _Optional[str] = ..., timestamp: _Optional[float] = ..., urls_found: _Optional[int] = ..., urls_new: _Optional[int] = ...) -> None: ...

class SearchingStart(_message.Message):
    __slots__ = ("iteration", "message", "queries", "timestamp")
    ITERATION_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    QUERIES_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    iteration: int
    message: str
    queries: _containers.RepeatedScalarFieldContainer[str]
    timestamp: float
    def __init__(self, iteration: _Optional[int] = ..., message: _Optional[str] = ..., queries: _Optional[_Iterable[str]] = ..., timestamp: _Optional[float] = ...) -> None: ...

class ResearchStart(_message.Message):
    __slots__ = ("message", "timestamp")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    message: str
    timestamp: float
    def __init__(self, message: _Optional[str] = ..., timestamp: _Optional[float] = ...) -> None: ...

class WritingEnd(_message.Message):
    __slots__ = ("attempt", "message", "timestamp")
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    attempt: int
    message: str
    timestamp: float
    def __init__(self, attempt: _Optional[int] = ..., message: _Optional[str] = ..., timestamp: _Optional[float] = ...) -> None: ...

class WritingStart(_message.Message):
    __slots__ = ("attempt", "is_revision", "max_attempts", "message", "timestamp", "previous_score")
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    IS_REVISION_FIELD_NUMBER: _ClassVar[int]
    MAX_ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_SCORE_FIELD_NUMBER: _ClassVar[int]
    attempt: int
    is_revision: bool
    max_attempts: int
    message: str
    timestamp: float
    previous_score: float
    def __init__(self, attempt: _Optional[int] = ..., is_revision: _Optional[bool] = ..., max_attempts: _Optional[int] = ..., message: _Optional[str] = ..., timestamp: _Optional[float] = ..., previous_score: _Optional[float] = ...) -> None: ...
