package model

import "fmt"

// The words of the enums: their text form (encoding.TextMarshaler), in the
// JSON export, the command line's flags (flag.TextVar) and messages.
var (
	initWords       = []string{"sample", "random", "pca"}
	relevanceWords  = []string{"global", "none", "local"}
	scheduleWords   = []string{"constant", "step", "anneal"}
	activationWords = []string{"identity", "sigmoid"}
	distanceWords   = []string{"geodesic", "chordal"}
	precisionWords  = []string{"float64", "float32"}
)

func enumText(words []string, v uint8) ([]byte, error) {
	if int(v) < len(words) {
		return []byte(words[v]), nil
	}
	return nil, fmt.Errorf("model: unknown value %d (want one of %v)", v, words)
}

func enumString(words []string, v uint8) string {
	if int(v) < len(words) {
		return words[v]
	}
	return fmt.Sprintf("unknown(%d)", v)
}

func enumParse(words []string, b []byte, what string) (uint8, error) {
	for i, w := range words {
		if w == string(b) {
			return uint8(i), nil
		}
	}
	return 0, fmt.Errorf("model: %w: unknown %s %q, want one of %v", ErrConfig, what, b, words)
}

// String returns "sample", "random" or "pca".
func (k InitKind) String() string { return enumString(initWords, uint8(k)) }

// MarshalText returns the word of k (String); an unknown value is an error.
func (k InitKind) MarshalText() ([]byte, error) { return enumText(initWords, uint8(k)) }

// UnmarshalText parses "sample", "random" or "pca".
func (k *InitKind) UnmarshalText(b []byte) error {
	v, err := enumParse(initWords, b, "initialisation")
	*k = InitKind(v)
	return err
}

// String returns "global", "none" or "local".
func (k RelevanceKind) String() string { return enumString(relevanceWords, uint8(k)) }

// MarshalText returns the word of k (String); an unknown value is an error.
func (k RelevanceKind) MarshalText() ([]byte, error) { return enumText(relevanceWords, uint8(k)) }

// UnmarshalText parses "global", "none" or "local".
func (k *RelevanceKind) UnmarshalText(b []byte) error {
	v, err := enumParse(relevanceWords, b, "relevance")
	*k = RelevanceKind(v)
	return err
}

// String returns "constant", "step" or "anneal".
func (s Schedule) String() string { return enumString(scheduleWords, uint8(s)) }

// MarshalText returns the word of s (String); an unknown value is an error.
func (s Schedule) MarshalText() ([]byte, error) { return enumText(scheduleWords, uint8(s)) }

// UnmarshalText parses "constant", "step" or "anneal".
func (s *Schedule) UnmarshalText(b []byte) error {
	v, err := enumParse(scheduleWords, b, "schedule")
	*s = Schedule(v)
	return err
}

// String returns "identity" or "sigmoid".
func (a Activation) String() string { return enumString(activationWords, uint8(a)) }

// MarshalText returns the word of a (String); an unknown value is an error.
func (a Activation) MarshalText() ([]byte, error) { return enumText(activationWords, uint8(a)) }

// UnmarshalText parses "identity" or "sigmoid".
func (a *Activation) UnmarshalText(b []byte) error {
	v, err := enumParse(activationWords, b, "activation")
	*a = Activation(v)
	return err
}

// String returns "geodesic" or "chordal".
func (k Distance) String() string { return enumString(distanceWords, uint8(k)) }

// MarshalText returns the word of k (String); an unknown value is an error.
func (k Distance) MarshalText() ([]byte, error) { return enumText(distanceWords, uint8(k)) }

// UnmarshalText parses "geodesic" or "chordal".
func (k *Distance) UnmarshalText(b []byte) error {
	v, err := enumParse(distanceWords, b, "distance")
	*k = Distance(v)
	return err
}

// String returns "float64" or "float32".
func (p Precision) String() string { return enumString(precisionWords, uint8(p)) }

// MarshalText returns the word of p (String); an unknown value is an error.
func (p Precision) MarshalText() ([]byte, error) { return enumText(precisionWords, uint8(p)) }

// UnmarshalText parses "float64" or "float32".
func (p *Precision) UnmarshalText(b []byte) error {
	v, err := enumParse(precisionWords, b, "precision")
	*p = Precision(v)
	return err
}

// Term returns the per-angle term of the distance between a set and a
// prototype: "θ_k²" (Geodesic) or "sin²θ_k" (Chordal).
func (k Distance) Term() string {
	if k == Chordal {
		return "sin²θ_k"
	}
	return "θ_k²"
}

// ImageTerm returns the distance of a single image (one angle, no
// relevance): "θ_1²" or "sin²θ_1".
func (k Distance) ImageTerm() string {
	if k == Chordal {
		return "sin²θ_1"
	}
	return "θ_1²"
}

// Formula returns the name of the distance with its formula, e.g.
// "geodesic (Σ λ_k θ_k²)".
func (k Distance) Formula() string { return k.String() + " (Σ λ_k " + k.Term() + ")" }
