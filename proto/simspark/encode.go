package simspark

// Append encodes p the way the server writes it and appends it to dst:
// perceptors concatenated in Order, each "(name " then its fields
// separated by single spaces, then ")" (so an empty See is "(See )"), and
// unknown perceptors and See items verbatim. With Format{ServerDecimals}
// it reproduces the server's bytes; with Format{ExactDecimals} parsing the
// result gives p back exactly. Items whose index lies outside their slice
// are skipped. It allocates only if dst is too small.
func (p *Perception) Append(dst []byte, f Format) []byte {
	for _, it := range p.Order {
		i := int(it.Index)
		switch it.Kind {
		case KindTime:
			dst = append(dst, "(time (now "...)
			dst = append(f.num(dst, p.Time), "))"...)
		case KindGS:
			dst = p.appendGS(dst, f)
		case KindGYR:
			dst = p.appendVec(dst, "(GYR (n ", ") (rt ", &p.GYR, f)
		case KindACC:
			dst = p.appendVec(dst, "(ACC (n ", ") (a ", &p.ACC, f)
		case KindHJ:
			if i >= len(p.Joints) {
				continue
			}
			j := p.Joints[i]
			dst = append(dst, "(HJ (n "...)
			dst = append(dst, j.ID.PerceptorName()...)
			dst = append(dst, ") (ax "...)
			dst = append(f.num(dst, j.Deg), "))"...)
		case KindFRP:
			if i >= len(p.FRP) {
				continue
			}
			r := &p.FRP[i]
			dst = append(dst, "(FRP (n "...)
			dst = append(dst, p.bytes(r.Name)...)
			dst = append(dst, ") (c "...)
			dst = appendNums(dst, r.C[:], f)
			dst = append(dst, ") (f "...)
			dst = appendNums(dst, r.F[:], f)
			dst = append(dst, "))"...)
		case KindTCH:
			if i >= len(p.Touch) {
				continue
			}
			tc := &p.Touch[i]
			dst = append(dst, "(TCH (n "...)
			dst = append(dst, p.bytes(tc.Name)...)
			dst = append(dst, ") (val "...)
			dst = append(f.num(dst, tc.Val), "))"...)
		case KindSee:
			dst = p.appendSee(dst, f)
		case KindHear:
			if i >= len(p.Hear) {
				continue
			}
			h := &p.Hear[i]
			dst = append(dst, "(hear "...)
			if h.HasTeam {
				dst = append(append(dst, p.bytes(h.Team)...), ' ')
			}
			dst = append(f.num(dst, h.Time), ' ')
			if h.Self {
				dst = append(dst, "self"...)
			} else {
				dst = f.num(dst, h.Dir)
			}
			dst = append(dst, ' ')
			dst = append(dst, p.bytes(h.Msg)...)
			dst = append(dst, ')')
		case KindUnknown:
			if i < len(p.Unknown) {
				dst = append(dst, p.bytes(p.Unknown[i])...)
			}
		}
	}
	return dst
}

func appendNums(dst []byte, v []float64, f Format) []byte {
	for i, x := range v {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = f.num(dst, x)
	}
	return dst
}

func (p *Perception) appendVec(dst []byte, a, b string, v *Vector, f Format) []byte {
	dst = append(dst, a...)
	dst = append(dst, p.bytes(v.Name)...)
	dst = append(dst, b...)
	dst = appendNums(dst, v.V[:], f)
	return append(dst, "))"...)
}

// sep appends the separator before a field: none after "(name ".
func sep(dst []byte, first *bool) []byte {
	if *first {
		*first = false
		return dst
	}
	return append(dst, ' ')
}

func (p *Perception) appendGS(dst []byte, f Format) []byte {
	g := &p.GS
	dst = append(dst, "(GS "...)
	first := true
	if g.HasUnum {
		dst = append(sep(dst, &first), "(unum "...)
		dst = append(itoa(dst, g.Unum), ')')
	}
	if g.HasTeam {
		dst = append(sep(dst, &first), "(team "...)
		dst = append(append(dst, p.bytes(g.Team)...), ')')
	}
	if g.HasScore {
		dst = append(sep(dst, &first), "(sl "...)
		dst = append(itoa(dst, g.ScoreLeft), ')')
		dst = append(dst, " (sr "...)
		dst = append(itoa(dst, g.ScoreRight), ')')
	}
	if g.HasTime {
		dst = append(sep(dst, &first), "(t "...)
		dst = append(f.num(dst, g.Time), ')')
	}
	if g.HasPlayMode {
		dst = append(sep(dst, &first), "(pm "...)
		dst = append(append(dst, p.bytes(g.PlayMode)...), ')')
	}
	return append(dst, ')')
}

func appendPol(dst []byte, pol *Polar, f Format) []byte {
	dst = append(dst, "(pol "...)
	dst = appendNums(dst, pol[:], f)
	return append(dst, ')')
}

func (p *Perception) appendSee(dst []byte, f Format) []byte {
	s := &p.See
	dst = append(dst, "(See "...)
	first := true
	for _, it := range s.Order {
		i := int(it.Index)
		switch it.Kind {
		case SeeObject:
			if i >= len(s.Objects) {
				continue
			}
			o := &s.Objects[i]
			dst = append(append(sep(dst, &first), '('), p.bytes(o.Name)...)
			dst = append(appendPol(append(dst, ' '), &o.Pol, f), ')')
		case SeeLine:
			if i >= len(s.Lines) {
				continue
			}
			l := &s.Lines[i]
			dst = append(sep(dst, &first), "(L "...)
			dst = appendPol(dst, &l.A, f)
			dst = append(appendPol(append(dst, ' '), &l.B, f), ')')
		case SeePlayer:
			if i >= len(s.Players) {
				continue
			}
			pl := &s.Players[i]
			dst = append(sep(dst, &first), "(P "...)
			pfirst := true
			if pl.HasTeam {
				dst = append(sep(dst, &pfirst), "(team "...)
				dst = append(append(dst, p.bytes(pl.Team)...), ')')
			}
			if pl.HasID {
				dst = append(sep(dst, &pfirst), "(id "...)
				dst = append(itoa(dst, pl.ID), ')')
			}
			for _, bp := range s.playerParts(pl) {
				dst = append(append(sep(dst, &pfirst), '('), p.bytes(bp.Name)...)
				dst = append(appendPol(append(dst, ' '), &bp.Pol, f), ')')
			}
			dst = append(dst, ')')
		case SeeFeature:
			if i >= len(s.Features) {
				continue
			}
			ft := &s.Features[i]
			dst = append(append(sep(dst, &first), '('), p.bytes(ft.Name)...)
			dst = append(dst, " (ffs "...)
			dst = append(appendNums(dst, ft.V[:], f), "))"...)
		case SeeMyPos:
			dst = append(sep(dst, &first), "(mypos "...)
			dst = append(appendNums(dst, s.MyPos[:], f), ')')
		case SeeMyOrien:
			dst = append(sep(dst, &first), "(myorien "...)
			dst = append(f.num(dst, s.MyOrien), ')')
		case SeeBallPos:
			dst = append(sep(dst, &first), "(ballpos "...)
			dst = append(appendNums(dst, s.BallPos[:], f), ')')
		case KindUnknown:
			if i < len(s.Unknown) {
				dst = append(sep(dst, &first), p.bytes(s.Unknown[i])...)
			}
		}
	}
	return append(dst, ')')
}

// playerParts returns pl's body parts, or none if they lie outside Parts.
func (s *See) playerParts(pl *Player) []BodyPart {
	end := int(pl.PartStart) + int(pl.PartCount)
	if end > len(s.Parts) {
		return nil
	}
	return s.Parts[pl.PartStart:end]
}

// Signature returns the message's structure: its perceptors in order with
// their names, and the items of its See block in order, for example
//
//	time GS GYR ACC HJ:hj1 HJ:hj2 See[B CNR TJ CC mypos] HJ:raj1 … FRP:rf HJ:rlj6 …
//
// Details: GS lists the optional fields it has beyond the usual (sl sr t
// pm) as GS+unum+team (or lacks, as GS-score); hear is hear:self for our
// own message; a See player is P:team(part part …); unknown perceptors
// and See items are ?name. Two messages with the same signature have the
// same perceptors, names and order. It allocates.
func (p *Perception) Signature() string {
	var b []byte
	for i, it := range p.Order {
		if i > 0 {
			b = append(b, ' ')
		}
		idx := int(it.Index)
		switch it.Kind {
		case KindGS:
			b = append(b, "GS"...)
			g := &p.GS
			for _, f := range [...]struct {
				has  bool
				name string
			}{{g.HasUnum, "+unum"}, {g.HasTeam, "+team"}, {!g.HasScore, "-score"}, {!g.HasTime, "-t"}, {!g.HasPlayMode, "-pm"}} {
				if f.has {
					b = append(b, f.name...)
				}
			}
		case KindHJ:
			b = append(b, "HJ:"...)
			if idx < len(p.Joints) {
				b = append(b, p.Joints[idx].ID.PerceptorName()...)
			}
		case KindFRP:
			b = append(b, "FRP:"...)
			if idx < len(p.FRP) {
				b = append(b, p.bytes(p.FRP[idx].Name)...)
			}
		case KindTCH:
			b = append(b, "TCH:"...)
			if idx < len(p.Touch) {
				b = append(b, p.bytes(p.Touch[idx].Name)...)
			}
		case KindHear:
			b = append(b, "hear"...)
			if idx < len(p.Hear) && p.Hear[idx].Self {
				b = append(b, ":self"...)
			}
		case KindSee:
			b = append(b, "See["...)
			b = append(b, p.SeeSignature()...)
			b = append(b, ']')
		case KindUnknown:
			if idx < len(p.Unknown) {
				b = appendUnknownName(b, p.bytes(p.Unknown[idx]))
			}
		default:
			b = append(b, it.Kind.String()...)
		}
	}
	return string(b)
}

// SeeSignature returns the See block's items in order (see Signature).
func (p *Perception) SeeSignature() string {
	s := &p.See
	var b []byte
	for i, it := range s.Order {
		if i > 0 {
			b = append(b, ' ')
		}
		idx := int(it.Index)
		switch it.Kind {
		case SeeObject:
			if idx < len(s.Objects) {
				b = append(b, p.bytes(s.Objects[idx].Name)...)
			}
		case SeeFeature:
			if idx < len(s.Features) {
				b = append(b, p.bytes(s.Features[idx].Name)...)
			}
		case SeePlayer:
			b = append(b, "P:"...)
			if idx < len(s.Players) {
				pl := &s.Players[idx]
				b = append(b, p.bytes(pl.Team)...)
				b = append(b, '(')
				for j, bp := range s.playerParts(pl) {
					if j > 0 {
						b = append(b, ' ')
					}
					b = append(b, p.bytes(bp.Name)...)
				}
				b = append(b, ')')
			}
		case KindUnknown:
			if idx < len(s.Unknown) {
				b = appendUnknownName(b, p.bytes(s.Unknown[idx]))
			}
		default:
			b = append(b, it.Kind.String()...)
		}
	}
	return string(b)
}

// appendUnknownName appends "?" and the name of the raw item: its first
// atom (the atom itself for a bare atom).
func appendUnknownName(b, raw []byte) []byte {
	b = append(b, '?')
	i := 0
	for i < len(raw) && (raw[i] == '(' || isSpace(raw[i])) {
		i++
	}
	j := i
	for j < len(raw) && !isDelim(raw[j]) {
		j++
	}
	return append(b, raw[i:j]...)
}
