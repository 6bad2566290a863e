package nni.manager.internal.experiment;

import java.util.Optional;

import nni.api.platform.TrainingSession;

/**
 * One member (training service) of an experiment as it is now.
 *
 * @param index    its place in {@code trainingService}
 * @param platform its platform's name
 * @param session  its open session; empty while the platform is away or before it opened
 * @param away     why the platform is away, when it is
 */
public record MemberState(int index, String platform, Optional<TrainingSession> session, Optional<String> away) {
}
