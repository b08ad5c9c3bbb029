"""The ranking app's tables, by module: campaigns and what workers judge in them (``campaigns``), the
compact stored form of imported judgments (``imported``), the researcher's gold answers (``gold``), each worker's trap record and each system's
score (``ranking.quality.records``), analysis runs and their results (``ranking.analysis.models``) and the
edit-level protocol's tables (``ranking.protocols.edits.models``). Django finds them all by importing this
package; callers import any of these names from here.

The edit-level tables come last: importing them runs the protocol registry, whose modules import the
names above (keep isort off)."""

# isort: off
from ranking.statuses import (
    FINISHED_STATUSES,
    HOLD_REASON_VALID,
    LIVE_ASSIGNMENT,
    LIVE_STATUSES,
    AssignmentStatus,
    HoldReason,
)
from ranking.models.campaigns import (
    LIVE_CAMPAIGN_STATUSES,
    Assignment,
    Campaign,
    CampaignOrigin,
    CampaignStatus,
    Candidate,
    COPIED_KINDS,
    Control,
    ControlKind,
    Hit,
    Rating,
    Screen,
    ScreenJudgment,
    TrapDesign,
)
from ranking.models.imported import ImportedEntry
from ranking.models.gold import GoldScreen
from ranking.quality.records import PilotDoubt, ScoresDue, SystemScore, WorkerOverride, WorkerRecord
from ranking.analysis.models import (
    AnalysisCache,
    AnalysisKind,
    AnalysisRun,
    ChunkPhase,
    ChunkStatus,
    CorrelationResult,
    ImportedScores,
    MetricResult,
    PrwsResult,
    RunChunk,
    RunInput,
    RunStatus,
    ScoreLevel,
    SentenceCorrelationResult,
    SystemRankResult,
)
from ranking.protocols.edits.models import Edit, EditedText, EditLabel, EditLabelChoice
# isort: on

__all__ = [
    "COPIED_KINDS",
    "FINISHED_STATUSES",
    "HOLD_REASON_VALID",
    "LIVE_ASSIGNMENT",
    "LIVE_CAMPAIGN_STATUSES",
    "LIVE_STATUSES",
    "AnalysisCache",
    "AnalysisKind",
    "AnalysisRun",
    "Assignment",
    "AssignmentStatus",
    "Campaign",
    "CampaignOrigin",
    "CampaignStatus",
    "Candidate",
    "ChunkPhase",
    "ChunkStatus",
    "Control",
    "ControlKind",
    "CorrelationResult",
    "Edit",
    "EditLabel",
    "EditLabelChoice",
    "EditedText",
    "GoldScreen",
    "Hit",
    "HoldReason",
    "ImportedEntry",
    "ImportedScores",
    "MetricResult",
    "PilotDoubt",
    "PrwsResult",
    "Rating",
    "RunChunk",
    "RunInput",
    "RunStatus",
    "ScoreLevel",
    "ScoresDue",
    "Screen",
    "ScreenJudgment",
    "SentenceCorrelationResult",
    "SystemRankResult",
    "SystemScore",
    "TrapDesign",
    "WorkerOverride",
    "WorkerRecord",
]
