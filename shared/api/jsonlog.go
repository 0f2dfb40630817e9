package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strconv"
	"time"
	"unicode/utf8"
)

// NewJSONLogger returns a logger that writes JSON lines to w at level and
// above: slog's JSONHandler for every line but the Middleware's request
// line, which it formats itself, without reflection or a call-stack
// capture, in the same shape (time, level, msg, then the attributes). The
// request line is the one written for every request; through slog it cost
// about as much CPU as a search's lookup.
func NewJSONLogger(w io.Writer, level slog.Leveler) *slog.Logger {
	if level == nil {
		level = slog.LevelInfo
	}
	return slog.New(&jsonHandler{Handler: slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}), w: w, level: level})
}

// jsonHandler is slog's JSONHandler with a fast path for request lines.
// Loggers derived with With or WithGroup use slog's handler alone.
type jsonHandler struct {
	slog.Handler
	w     io.Writer
	level slog.Leveler
}

// lineBufs holds the buffers request lines are built in (a line is under
// a kilobyte: its logged path is cut at 256 bytes).
var lineBufs = Buffers{Max: 64 << 10}

// requestLine writes one line with msg and attrs at level, and reports
// whether the level is enabled.
func (h *jsonHandler) requestLine(level slog.Level, msg string, attrs []slog.Attr) bool {
	if level < h.level.Level() {
		return false
	}
	bp := lineBufs.Get()
	b := append(*bp, `{"time":"`...)
	b = time.Now().Truncate(time.Millisecond).AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"`...)
	b = append(b, level.String()...)
	b = append(b, `","msg":`...)
	b = appendJSONString(b, msg)
	for _, a := range attrs {
		b = append(b, ',')
		b = appendJSONString(b, a.Key)
		b = append(b, ':')
		b = appendJSONValue(b, a.Value)
	}
	b = append(b, '}', '\n')
	h.w.Write(b)
	*bp = b
	lineBufs.Put(bp)
	return true
}

func (h *jsonHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

func appendJSONValue(b []byte, v slog.Value) []byte {
	switch v.Kind() {
	case slog.KindString:
		return appendJSONString(b, v.String())
	case slog.KindInt64:
		return strconv.AppendInt(b, v.Int64(), 10)
	case slog.KindUint64:
		return strconv.AppendUint(b, v.Uint64(), 10)
	case slog.KindFloat64:
		return strconv.AppendFloat(b, v.Float64(), 'f', -1, 64)
	case slog.KindBool:
		return strconv.AppendBool(b, v.Bool())
	}
	j, err := json.Marshal(v.Resolve().Any())
	if err != nil {
		return appendJSONString(b, err.Error())
	}
	return append(b, j...)
}

// appendJSONString appends s as a JSON string: plain printable ASCII as
// is, anything else through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf || c == '<' || c == '>' || c == '&' {
			j, _ := json.Marshal(s)
			return append(b, j...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
