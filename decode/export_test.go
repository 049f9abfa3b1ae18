package decode

// QueueLen exposes the number of records held by the time-ordering queue.
func QueueLen(rs *Records) int { return rs.q.len() + len(rs.ready) - rs.readyHead }

// ArenaChunks exposes the number of chunks the time-ordering queue's
// arena holds.
func ArenaChunks(rs *Records) int { return rs.arena.chunks }
