"""What each page computes, without Dash: its parameters checked (the browser is untrusted), what it derives
from the shared scenario, and its cached engine calls. Plain values in, plain values (or engine results) out."""
