package output

import (
	"github.com/perfstitch/perfstitch/decode"
)

// evConfig is what perf script decides once per event: the fields it
// prints and whether it prints callchains.
type evConfig struct {
	fields    Field
	callchain bool // the event samples callchains and -G is not given
	name      string
}

// eventSet resolves and caches the evConfig of every event, as perf does
// per event type (output[type] is shared by all events of a type and
// checked against the first of them).
type eventSet struct {
	fields        Fields
	hideCallchain bool
	attrs         func() []*decode.EventAttr
	newer         bool // perf 7.3.4's defaults (raw events' retire_lat)

	byAttr    map[*decode.EventAttr]*evConfig
	byType    map[decode.AttrType]Field
	nameWidth int
	named     bool
}

// first returns the event perf uses for a record without a known event
// (evlist__id2evsel: the first one).
func (s *eventSet) first() *decode.EventAttr {
	if s.attrs == nil {
		return nil
	}
	if as := s.attrs(); len(as) > 0 {
		return as[0]
	}
	return nil
}

// checkAll resolves every known event, returning the first field error.
func (s *eventSet) checkAll() error {
	if s.attrs == nil {
		return nil
	}
	for _, a := range s.attrs() {
		if _, err := s.config(a); err != nil {
			return err
		}
	}
	return nil
}

// config returns the configuration of attr (nil: the first event); nil if
// there is no event at all.
func (s *eventSet) config(attr *decode.EventAttr) (*evConfig, error) {
	if attr == nil {
		if attr = s.first(); attr == nil {
			return nil, nil
		}
	}
	if c, ok := s.byAttr[attr]; ok {
		return c, nil
	}
	if s.byAttr == nil {
		s.byAttr = make(map[*decode.EventAttr]*evConfig)
		s.byType = make(map[decode.AttrType]Field)
	}
	if !s.named {
		s.named = true
		if s.attrs != nil {
			for _, a := range s.attrs() {
				s.nameWidth = max(s.nameWidth, len(a.Name))
			}
		}
		s.nameWidth = max(s.nameWidth, len(attr.Name))
	}
	fields, ok := s.byType[attr.Type]
	if !ok {
		var err error
		if fields, err = resolveFields(&s.fields, attr, s.newer); err != nil {
			return nil, err
		}
		s.byType[attr.Type] = fields
	}
	c := &evConfig{
		fields:    fields,
		callchain: !s.hideCallchain && attr.SampleType&decode.SampleCallchain != 0,
		name:      attr.Name,
	}
	s.byAttr[attr] = c
	return c, nil
}
