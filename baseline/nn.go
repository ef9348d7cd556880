package baseline

// neighbour is one training sample found by knn: its distance, its index
// among the samples and its (compact) class.
type neighbour struct {
	dist  float64
	index int
	class int
}

// before orders neighbours by distance, then by sample index.
func (a neighbour) before(b neighbour) bool {
	return a.dist < b.dist || a.dist == b.dist && a.index < b.index
}

// knn classifies sample q by the k nearest of the samples train (classes
// cls[i] of train[i], 0..nc-1) under the distance kind: a majority vote;
// among classes with the most votes, the one whose nearest member ranks
// first (so k = 1 is the nearest neighbour, and a tie of votes goes to the
// class of the nearer neighbours, whatever the class numbers). Neighbours
// at equal distance rank by sample index. best (len >= k) and votes (len
// nc) are scratch.
func knn(p *Pairs, kind Distance, q int, train, cls []int, k int, best []neighbour, votes []int) int {
	k = min(k, len(train))
	best = best[:0]
	tab := p.dist[kind]
	for t, i := range train {
		c := neighbour{dist: tab[p.index(q, i)], index: i, class: cls[t]}
		if len(best) == k {
			if !c.before(best[k-1]) {
				continue
			}
			best = best[:k-1]
		}
		// Insertion keeps best sorted; k is small.
		j := len(best)
		best = append(best, c)
		for j > 0 && c.before(best[j-1]) {
			best[j] = best[j-1]
			j--
		}
		best[j] = c
	}
	clear(votes)
	top := 0
	for _, b := range best {
		votes[b.class]++
		top = max(top, votes[b.class])
	}
	for _, b := range best {
		if votes[b.class] == top {
			return b.class
		}
	}
	return -1 // no training sample
}
