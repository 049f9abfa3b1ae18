package decode

// QueueLen exposes the number of records held by the time-ordering queue.
func QueueLen(rs *Records) int { return rs.q.len() }

// ArenaChunks exposes the number of chunks the time-ordering queue's
// arena holds.
func ArenaChunks(rs *Records) int { return rs.arena.chunks }

// QueueFootprint exposes the memory the time-ordering queue holds, as its
// budget (Limits.QueueBytes) counts it.
func QueueFootprint(rs *Records) int64 { return rs.queueFootprint() }
