package energyapi

import (
	"net/http"
	"strings"

	"meridian/shared/energy"
)

var operatorViews = []string{"summary", "dispositions", "wells", "lsds"}

type list[T any] struct {
	Rows []T            `json:"rows"`
	Meta map[string]any `json:"meta"`
}

// operators answers GET /energy/operators.
func (h *Handler) operators(r *http.Request) ([]byte, error) {
	p, err := pagingParams(r, energy.OperatorListSorts, "orphan")
	if err != nil {
		return nil, err
	}
	cursor, err := cursorParam(r, p)
	if err != nil {
		return nil, err
	}
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	page, err := h.rep.Operators(r.Context(), energy.OperatorsQuery{Paging: p, Cursor: cursor, Q: q})
	if err != nil {
		return nil, err
	}
	return renderList(page.Raw, list[energy.OperatorRow]{page.Rows, withCursor(listMeta(page.Total, p, map[string]any{"q": echo(q)}), page.Next)})
}

type operatorView[T any] struct {
	BACode string         `json:"ba_code"`
	Name   string         `json:"name"`
	Slug   string         `json:"slug"`
	View   string         `json:"view"`
	Rows   []T            `json:"rows"`
	Meta   map[string]any `json:"meta"`
}

func viewOf[T any](info energy.OperatorInfo, view string, page energy.Page[T], meta map[string]any) operatorView[T] {
	return operatorView[T]{info.BACode, info.Name, info.Slug, view, page.Rows, withCursor(meta, page.Next)}
}

// operator answers GET /energy/operators/{name}.
func (h *Handler) operator(r *http.Request) ([]byte, error) {
	ctx := r.Context()
	q := r.URL.Query()
	view, err := enumParam(q, "view", operatorViews...)
	if err != nil {
		return nil, err
	}
	if view == "" {
		view = "summary"
	}
	// Validate every parameter before reading.
	var p energy.Paging
	switch view {
	case "dispositions":
		p, err = pagingParams(r, energy.OperatorDispositionSorts, "expiry")
	case "wells":
		p, err = pagingParams(r, energy.OperatorWellSorts, "uwi")
	case "lsds":
		p, err = pagingParams(r, energy.OperatorLSDSorts, "total")
	}
	if err != nil {
		return nil, err
	}
	var cursor string
	if view != "summary" {
		if cursor, err = cursorParam(r, p); err != nil {
			return nil, err
		}
	}
	name := r.PathValue("name")
	search := strings.TrimSpace(q.Get("q"))
	switch view {
	case "dispositions":
		kind, err := enumParam(q, "tenure_kind", energy.TenureKinds...)
		if err != nil {
			return nil, err
		}
		within, err := optInt(q, "expires_within_days", 1, MaxWindowDays)
		if err != nil {
			return nil, err
		}
		typ, status := strings.TrimSpace(q.Get("type")), strings.TrimSpace(q.Get("status"))
		info, page, err := h.rep.OperatorDispositions(ctx, energy.OperatorDispositionsQuery{Name: name, Paging: p, Cursor: cursor,
			Kind: kind, Within: within, Type: typ, Status: status, Q: search})
		if err != nil {
			return nil, err
		}
		return renderList(page.Raw, viewOf(info, view, page, listMeta(page.Total, p, map[string]any{"tenure_kind": echo(kind),
			"type": echo(typ), "status": echo(status), "q": echo(search), "expires_within_days": echoInt(within)})))
	case "wells":
		status, err := enumParam(q, "status", energy.WellStatuses...)
		if err != nil {
			return nil, err
		}
		info, page, err := h.rep.OperatorWells(ctx, energy.OperatorWellsQuery{Name: name, Paging: p, Cursor: cursor, Status: status, Q: search})
		if err != nil {
			return nil, err
		}
		return renderList(page.Raw, viewOf(info, view, page, listMeta(page.Total, p, map[string]any{"status": echo(status), "q": echo(search)})))
	case "lsds":
		info, page, err := h.rep.OperatorLSDs(ctx, energy.OperatorLSDsQuery{Name: name, Paging: p, Cursor: cursor, Q: search})
		if err != nil {
			return nil, err
		}
		return renderList(page.Raw, viewOf(info, view, page, listMeta(page.Total, p, map[string]any{"q": echo(search)})))
	}
	s, err := h.rep.OperatorSummary(ctx, name)
	if err != nil {
		return nil, err
	}
	return renderJSON(s)
}
